import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { rawUploadHeaders } from "@/lib/assets/schemas";
import { uuid } from "@/lib/core/schemas";
import { defineEndpoint, rawOrJson } from "@/lib/http/endpoint";
import { ApiError } from "@/lib/core/errors";
import { handle, routes, toErrorResponse } from "@/lib/http/handler";
import { contentDispositionHeader, failsWith } from "@/lib/http/headers";

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

/** Sends a request to a handler and returns the status with the JSON body. */
async function send(
  handler: ReturnType<typeof handle>,
  init: { params?: Record<string, string>; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: any }> {
  const request = new Request("http://localhost/v1/things", { method: "POST", headers: init.headers, body: init.body });
  const response = await handler(request, { params: Promise.resolve(init.params ?? {}) });
  return { status: response.status, body: await response.json() };
}

const base = {
  operationId: "testThing",
  method: "POST" as const,
  path: "/things",
  summary: "test",
  tag: "Test",
  auth: "none" as const,
  response: { description: "ok" },
  errors: [],
};

describe("handle(): params", () => {
  const spec = defineEndpoint({
    ...base,
    path: "/things/{thingCode}",
    params: z.object({ thingCode: z.string().regex(/^[a-z]+$/, "must be lower-case letters") }),
  });
  const handler = handle(spec, async ({ params }) => ({ code: params.thingCode }));

  it("parses params with the declared schema and names a failing param", async () => {
    expect(await send(handler, { params: { thingCode: "abc" } })).toEqual({ status: 200, body: { code: "abc" } });
    const refused = await send(handler, { params: { thingCode: "ABC" } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: "request/validation-failed", message: expect.stringContaining("params.thingCode") });
  });

  it("answers a malformed id with the resource's not-found code before the schema runs", async () => {
    const assets = handle(defineEndpoint({ ...base, path: "/assets/{assetId}", params: z.object({ assetId: uuid }) }), async ({ params }) => params);
    expect(await send(assets, { params: { assetId: "not-a-uuid" } })).toMatchObject({ status: 404, body: { code: "asset/not-found" } });
    const id = "0F8FAD5B-D9CB-469F-A165-70867728950E";
    expect(await send(assets, { params: { assetId: id } })).toEqual({ status: 200, body: { assetId: id.toLowerCase() } });
  });
});

describe("handle(): headers", () => {
  const spec = defineEndpoint({
    ...base,
    headers: z.object({
      "x-mode": failsWith(z.enum(["fast", "slow"]).describe("How"), "upload/missing-header", "Send X-Mode."),
      "x-count": z.coerce.number().int().optional().describe("How many"),
      "content-disposition": contentDispositionHeader,
    }),
  });
  const handler = handle(spec, async ({ headers }) => headers);

  it("delivers typed header values, the filename parsed from Content-Disposition", async () => {
    const headers = { "X-Mode": "fast", "X-Count": "3", "Content-Disposition": "attachment; filename*=UTF-8''gr%C3%BC%C3%9Fe.txt" };
    expect(await send(handler, { headers })).toEqual({
      status: 200,
      body: { "x-mode": "fast", "x-count": 3, "content-disposition": { fileName: "grüße.txt" } },
    });
    const plain = await send(handler, { headers: { "x-mode": "slow", "content-disposition": 'attachment; filename="a \\"b\\".txt"' } });
    expect(plain.body).toEqual({ "x-mode": "slow", "content-disposition": { fileName: 'a "b".txt' } });
  });

  it("answers a failing header with its declared error, others with validation-failed naming it", async () => {
    expect(await send(handler, {})).toEqual({ status: 400, body: { code: "upload/missing-header", message: "Send X-Mode.", traceId: expect.any(String) } });
    const count = await send(handler, { headers: { "x-mode": "fast", "x-count": "many" } });
    expect(count.body).toMatchObject({ code: "request/validation-failed", message: expect.stringContaining("headers.x-count") });
  });

  it("keeps the raw upload headers' codes and messages", async () => {
    const upload = handle(defineEndpoint({ ...base, headers: rawUploadHeaders("content"), body: "raw" }), async ({ headers }) => headers);
    const message = async (headers: Record<string, string>) => (await send(upload, { headers })).body.message;
    expect(await message({ "Content-Type": "image/png" })).toBe("This endpoint needs the header X-Service-Upload: content.");
    expect(await message({ "X-Service-Upload": "part", "Content-Type": "image/png" })).toBe("This endpoint needs the header X-Service-Upload: content.");
    expect(await message({ "X-Service-Upload": "content" })).toBe("The Content-Type header (the file's type) is required.");
    expect((await send(upload, { headers: { "X-Service-Upload": " Content ", "Content-Type": "image/png" } })).body).toEqual({
      "x-service-upload": "content",
      "content-type": "image/png",
      "content-disposition": { fileName: null },
    });
  });
});

describe("handle(): raw-or-JSON bodies", () => {
  const spec = defineEndpoint({
    ...base,
    maxBodyBytes: 32,
    body: rawOrJson({
      json: z.strictObject({ n: z.number() }),
      rawHeaders: z.object({ "x-service-upload": failsWith(z.literal("part"), "upload/missing-header", "Send X-Service-Upload: part.") }),
    }),
  });
  const handler = handle(spec, async ({ body }) => {
    if (body.kind === "json") return { json: body.value.n };
    const chunks: Buffer[] = [];
    for await (const chunk of body.body.stream) chunks.push(chunk as Buffer);
    return { raw: Buffer.concat(chunks).toString("utf8"), marker: body.headers["x-service-upload"], type: body.body.contentType };
  });
  const json = { "Content-Type": "application/json; charset=utf-8" };

  it("parses JSON when Content-Type is application/json without X-Service-Upload", async () => {
    expect(await send(handler, { headers: json, body: '{"n":7}' })).toEqual({ status: 200, body: { json: 7 } });
    expect((await send(handler, { headers: json, body: '{"n":"x"}' })).body.code).toBe("request/validation-failed");
  });

  it("streams raw bytes, with their parsed headers, otherwise", async () => {
    const raw = await send(handler, { headers: { "X-Service-Upload": "part", "Content-Type": "application/json" }, body: "{not json" });
    expect(raw).toEqual({ status: 200, body: { raw: "{not json", marker: "part", type: "application/json" } });
    const unmarked = await send(handler, { headers: { "Content-Type": "text/plain" }, body: "bytes" });
    expect(unmarked).toMatchObject({ status: 400, body: { code: "upload/missing-header", message: "Send X-Service-Upload: part." } });
  });

  it("caps the JSON form (413) and refuses malformed JSON", async () => {
    const big = await send(handler, { headers: json, body: JSON.stringify({ n: 1, pad: "x".repeat(40) }) });
    expect(big).toMatchObject({ status: 413, body: { code: "request/body-too-large" } });
    expect(await send(handler, { headers: json, body: "{oops" })).toMatchObject({ status: 400, body: { code: "request/malformed-json" } });
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
