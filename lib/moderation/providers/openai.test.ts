import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { providerError } from "@/tests/support/provider-errors";
import { startFakeOpenAIModeration, type FakeOpenAIModeration } from "@/tests/support/fake-openai-moderation";
import { createOpenAIModerationProvider } from "./openai";
import { combineProviders } from "./combine";

let fake: FakeOpenAIModeration;
beforeAll(async () => {
  fake = await startFakeOpenAIModeration({ apiKey: "sk-secret-123" });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.setMode("ok");
  fake.setScores({});
  fake.requests.length = 0;
});

const provider = () => createOpenAIModerationProvider({ baseUrl: fake.baseUrl, apiKey: "sk-secret-123" });
const opts = { timeoutMs: 2000 };
const text = { kind: "text" as const, text: "some text" };
const png = { kind: "image" as const, data: new Uint8Array([0x89, 0x50, 0x4e, 0x47]), mimeType: "image/png" };

describe("OpenAI moderation provider", () => {
  it("posts {model, input} text with a Bearer key and maps all six categories", async () => {
    fake.setScores({ hate: 0.2, "hate/threatening": 0.4, illicit: 0.1, "illicit/violent": 0.3, harassment: 0.8, "harassment/threatening": 0.05 });
    const result = await provider().classify(text, opts);
    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req).toMatchObject({ method: "POST", url: "/v1/moderations", authorization: "Bearer sk-secret-123" });
    expect(req.contentType).toContain("application/json");
    expect(req.body).toEqual({ model: "omni-moderation-latest", input: "some text" });
    expect(Object.keys(result.categories).sort()).toEqual(["criminal-activity", "harassment", "hate", "self-harm", "sexual", "violence"]);
    expect(result.categories.hate).toEqual({ score: 0.4, qualifiers: { "hate-threat": 0.4 } });
    expect(result.categories.harassment).toEqual({ score: 0.8, qualifiers: { "harassment-threat": 0.05 } });
    expect(result.categories["criminal-activity"]).toEqual({ score: 0.3 });
    expect(result.details).toMatchObject({ model: "omni-moderation-latest", categoryScores: { hate: 0.2, "illicit/violent": 0.3 } });
  });

  it("maps sexual/minors, violence/graphic and self-harm sub-categories", async () => {
    fake.setScores({
      sexual: 0.1,
      "sexual/minors": 0.7,
      violence: 0.5,
      "violence/graphic": 0.9,
      "self-harm": 0.2,
      "self-harm/intent": 0.6,
      "self-harm/instructions": 0.3,
    });
    const { categories } = await provider().classify(text, opts);
    expect(categories.sexual).toEqual({ score: 0.7 });
    expect(categories.violence).toEqual({ score: 0.9, qualifiers: { graphic: 0.9 } });
    expect(categories["self-harm"]).toEqual({ score: 0.6, qualifiers: { "self-harm-thoughts": 0.6, "self-harm-methods": 0.3 } });
  });

  it("sends images as an image_url data URL and reports only image-capable categories", async () => {
    fake.setScores({ sexual: 0.95, hate: 0.9 });
    const p = provider();
    expect(p.supports("image")).toEqual(["sexual", "violence", "self-harm"]);
    expect(p.supports("frame")).toEqual(["sexual", "violence", "self-harm"]);
    const result = await p.classify(png, opts);
    expect(fake.requests[0]?.body).toEqual({
      model: "omni-moderation-latest",
      input: [{ type: "image_url", image_url: { url: "data:image/png;base64,iVBORw==" } }],
    });
    expect(Object.keys(result.categories).sort()).toEqual(["self-harm", "sexual", "violence"]);
    expect(result.categories.sexual?.score).toBe(0.95);
  });

  it("uses the configured model and base URL (trailing slash tolerated)", async () => {
    const p = createOpenAIModerationProvider({ baseUrl: `${fake.baseUrl}/`, apiKey: "sk-secret-123", model: "text-moderation-latest", id: "legacy" });
    expect(p.id).toBe("legacy");
    expect(p.version).toBe("text-moderation-latest");
    expect(p.supports("text")).not.toContain("criminal-activity");
    expect(p.supports("image")).toEqual([]);
    const result = await p.classify(text, opts);
    expect(fake.requests[0]?.body).toMatchObject({ model: "text-moderation-latest" });
    expect(result.categories["criminal-activity"]).toBeUndefined();
  });

  it("a wrong key gives an http error (401) without leaking the key", async () => {
    const p = createOpenAIModerationProvider({ baseUrl: fake.baseUrl, apiKey: "sk-wrong-key" });
    const error = await providerError(p.classify(text, opts));
    expect(error).toMatchObject({ code: "http", status: 401 });
    expect(error.message).not.toContain("sk-wrong-key");
  });

  it("HTTP 500 → http error", async () => {
    fake.setMode("fail");
    expect(await providerError(provider().classify(text, opts))).toMatchObject({ code: "http", status: 500, providerId: "openai-moderation" });
  });

  it("a hanging server → timeout error within timeoutMs", async () => {
    fake.setMode("hang");
    const started = Date.now();
    const error = await providerError(provider().classify(text, { timeoutMs: 150 }));
    expect(error.code).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("caller abort → aborted error", async () => {
    fake.setMode("hang");
    const controller = new AbortController();
    const pending = provider().classify(text, { timeoutMs: 5000, signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    expect((await providerError(pending)).code).toBe("aborted");
  });

  it("non-JSON and wrongly shaped bodies → malformed error", async () => {
    fake.setMode("garbage");
    expect((await providerError(provider().classify(text, opts))).code).toBe("malformed");
    fake.setMode("bad-shape");
    expect((await providerError(provider().classify(text, opts))).code).toBe("malformed");
  });

  it("an unreachable server → network error", async () => {
    const p = createOpenAIModerationProvider({ baseUrl: "http://127.0.0.1:1/v1", apiKey: "k" });
    expect((await providerError(p.classify(text, opts))).code).toBe("network");
  });

  it("the fake rejects requests outside the documented format", async () => {
    const post = (body: unknown) =>
      fetch(`${fake.baseUrl}/moderations`, {
        method: "POST",
        headers: { authorization: "Bearer sk-secret-123", "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await post({ model: "omni-moderation-latest", input: [{ type: "image", data: "x" }] })).status).toBe(400);
    expect((await post({ model: "omni-moderation-latest", input: [{ type: "image_url", image_url: { url: "file:///etc/passwd" } }] })).status).toBe(400);
    expect((await post({ model: "omni-moderation-latest", input: [{ type: "text", text: "hi" }] })).status).toBe(200);
  });

  it("plugs into combine: failures become unavailable", async () => {
    fake.setMode("fail");
    const result = await combineProviders([provider()], text, opts);
    expect(result.categories.hate).toEqual({ status: "not-evaluated", reason: "unavailable" });
    fake.setMode("ok");
    fake.setScores({ violence: 0.7 });
    const ok = await combineProviders([provider()], png, opts);
    expect(ok.categories.violence).toMatchObject({ status: "evaluated", score: 0.7 });
    expect(ok.categories.hate).toEqual({ status: "not-evaluated", reason: "not-supported" });
  });
});
