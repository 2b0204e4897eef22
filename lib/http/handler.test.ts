import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineEndpoint } from "@/lib/http/endpoint";
import { ApiError } from "@/lib/core/errors";
import { handle, routes, toErrorResponse } from "@/lib/http/handler";

const spec = defineEndpoint({
  operationId: "testThing",
  method: "POST",
  path: "/things",
  summary: "test",
  tag: "Test",
  auth: "none",
  body: z.strictObject({ n: z.number() }),
  response: { description: "ok" },
  errors: [],
});

const call = (handler: ReturnType<typeof handle>, body: string) =>
  handler(new Request("http://localhost/v1/things", { method: "POST", body, headers: { "x-request-id": "req-1" } }), {
    params: Promise.resolve({}),
  });

describe("handle()", () => {
  it("answers an unexpected exception with 500 internal/unexpected and no internals", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const response = await call(handle(spec, async () => { throw new Error("secret stack detail"); }), '{"n":1}');
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ message: "An unexpected error occurred.", code: "internal/unexpected", traceId: "req-1" });
    expect(text).not.toContain("secret");
    expect(response.headers.get("x-request-id")).toBe("req-1");
  });

  it("answers database outages with 503 service/unavailable and Retry-After", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const outage = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    const response = toErrorResponse(outage, "req-2", "op");
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    expect(await response.json()).toMatchObject({ code: "service/unavailable", traceId: "req-2" });
  });

  it("keeps an ApiError's status, code and headers", async () => {
    const response = toErrorResponse(new ApiError("rate-limit/exceeded", "slow down", { headers: { "Retry-After": "3" } }), "r", "op");
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("3");
    expect(await response.json()).toEqual({ message: "slow down", code: "rate-limit/exceeded", traceId: "r" });
  });

  it("validates the body before the handler runs and returns the handler's data as JSON", async () => {
    const handler = handle(spec, async ({ body }) => ({ doubled: body.n * 2 }));
    const ok = await call(handler, '{"n":21}');
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ doubled: 42 });
    expect((await (await call(handler, '{"n":"x"}')).json()).code).toBe("request/validation-failed");
    expect((await (await call(handler, "{oops")).json()).code).toBe("request/malformed-json");
  });
});

describe("routes()", () => {
  it("fills other methods with a JSON 405 and answers OPTIONS with the real methods", async () => {
    const table = routes({ POST: handle(spec, async () => ({})) });
    const wrong = await table.GET(new Request("http://localhost/v1/things"), { params: Promise.resolve({}) });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST, OPTIONS");
    expect((await wrong.json()).code).toBe("request/method-not-allowed");
    const options = await table.OPTIONS(new Request("http://localhost/v1/things", { method: "OPTIONS" }), { params: Promise.resolve({}) });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("POST, OPTIONS");
  });
});
