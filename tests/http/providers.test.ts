import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAIModeration, type FakeOpenAIModeration } from "@/tests/support/fake-openai-moderation";
import { makeJpeg } from "@/tests/support/media-fixtures";
import { startTestServer, type RunningServer } from "@/tests/support/test-server";
import { expectConforms } from "./conformance-support";

/**
 * The hosted provider configured beside the local one (SIEVE_CLASSIFIER_PROVIDERS=local,openai),
 * against a local server speaking the OpenAI moderation API: results are combined per category,
 * and a failing, hanging or malformed provider makes its categories partial or unavailable —
 * never a made-up score.
 */
let fake: FakeOpenAIModeration;
let server: RunningServer;
let project: { projectId: string; apiKey: string };

beforeAll(async () => {
  fake = await startFakeOpenAIModeration();
  server = await startTestServer({
    SIEVE_CLASSIFIER_PROVIDERS: "local,openai",
    SIEVE_OPENAI_MODERATION_URL: fake.baseUrl,
    SIEVE_OPENAI_MODERATION_KEY: fake.apiKey,
    SIEVE_CLASSIFIER_TIMEOUT_MS: "1500",
  });
  const { createProject } = await import("@/lib/projects/provision");
  project = await createProject({ name: "providers", permissions: ["assets:write", "assets:read"] });
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

/** Uploads and decides; the answer (partial and unavailable entries included) must conform to the OpenAPI document. */
async function upload(content: Record<string, unknown>): Promise<any> {
  const path = `/projects/${project.projectId}/assets?queue=false`;
  const requestJson = { name: "item", content, processingOptions: { keepContentAfterProcessing: true } };
  const response = await fetch(`${server.baseUrl}/v1${path}`, {
    method: "POST",
    headers: { "X-Api-Key": project.apiKey, "Content-Type": "application/json" },
    body: JSON.stringify(requestJson),
  });
  const body = await response.json();
  if (response.status !== 200) throw new Error(`upload: ${response.status} ${JSON.stringify(body)}`);
  await expectConforms({ method: "POST", path, status: response.status, contentType: response.headers.get("content-type"), body, requestJson });
  return body;
}

const text = (plainText: string) => ({ type: "text/plain", plainText });

describe("OpenAI-compatible provider combined with the local one", () => {
  it("its scores count (max per category) and the request follows the documented format", async () => {
    fake.setMode("ok");
    fake.setScores({ hate: 0.93, "hate/threatening": 0.7 });
    const before = fake.requests.length;
    const asset = await upload(text("People like them are not welcome in this neighbourhood."));
    expect(asset.status).toBe("rejected");
    expect(asset.report.categories.hate).toMatchObject({ status: "evaluated", score: 0.93, likelihood: "very-likely" });
    expect(asset.report.categories.hate.qualifiers["hate-threat"]).toMatchObject({ status: "evaluated", score: 0.7 });
    const request = fake.requests[before]!;
    expect(request.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(request.body).toMatchObject({ model: "omni-moderation-latest" });
    expect(JSON.stringify(asset.report.notes)).toContain("openai-moderation");
  });

  it("a failing provider leaves the local judgement as partial, never an invented score", async () => {
    fake.setMode("fail");
    const asset = await upload(text("I will kill you tomorrow."));
    expect(asset.status).toBe("rejected");
    expect(asset.report.categories.violence).toMatchObject({ status: "partial" });
    expect(asset.report.categories.violence.score).toBeGreaterThan(0.6);
    expect(JSON.stringify(asset.report.notes)).toMatch(/unavailable/);
  });

  it("a hanging provider times out and is unavailable; a malformed answer too", async () => {
    fake.setMode("hang");
    const started = Date.now();
    const hung = await upload(text("A quiet evening with friends."));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(hung.status).toBe("approved");
    expect(hung.report.categories.harassment.status).toBe("partial");

    fake.setMode("bad-shape");
    const malformed = await upload(text("A quiet evening with friends."));
    expect(malformed.report.categories.hate.status).toBe("partial");
    fake.setMode("ok");
  });

  it("images: categories only the hosted model judges for images become evaluated; failure makes them unavailable", async () => {
    fake.setMode("ok");
    fake.setScores({ violence: 0.2 });
    const jpeg = await makeJpeg({ width: 120, height: 90, color: { r: 90, g: 160, b: 60 } });
    const ok = await upload({ type: "image/jpeg", base64: jpeg.toString("base64") });
    expect(ok.report.categories.violence).toMatchObject({ status: "evaluated", score: 0.2 });
    expect(ok.report.categories.hate).toEqual({ status: "not-evaluated", reason: "not-supported" });

    fake.setMode("fail");
    const failed = await upload({ type: "image/jpeg", base64: jpeg.toString("base64") });
    expect(failed.report.categories.violence).toEqual({ status: "not-evaluated", reason: "unavailable" });
    expect(failed.report.categories.sexual.status).toBe("partial"); // nsfwjs still judged it
    fake.setMode("ok");
  });
});
