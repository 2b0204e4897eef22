import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeChatCompletions, type FakeChatCompletions } from "@/tests/support/fake-chat-completions";
import { classifyPart } from "../pipeline/parts";
import { unanalysedParts } from "../pipeline/unanalysed";
import { DEFAULT_THRESHOLDS, decide, failClosed } from "../policy";
import { buildReport } from "../report";
import { configuredProviders } from "./configured";

/**
 * SIEVE_CLASSIFIER_PROVIDERS=llm as the pipeline runs it (configuration → configured providers →
 * classifyPart → unanalysed parts → decision): a model server that fails leaves the text unjudged,
 * and the asset is rejected for review instead of approved (fail closed, docs/api.md).
 */

let fake: FakeChatCompletions;
const saved = { ...process.env };

beforeAll(async () => {
  fake = await startFakeChatCompletions({ model: "llama-guard3:1b" });
  // config() is read once per test file (worker), on first use below.
  Object.assign(process.env, {
    SIEVE_CLASSIFIER_PROVIDERS: "llm",
    SIEVE_CLASSIFIER_TIMEOUT_MS: "2000",
    SIEVE_LLM_BASE_URL: fake.baseUrl,
    SIEVE_LLM_MODEL: "llama-guard3:1b",
    SIEVE_LLM_TIMEOUT_MS: "500",
    SIEVE_LLM_RETRIES: "1",
  });
});
afterAll(async () => {
  process.env = saved;
  await fake.close();
});

async function decisionFor(text: string) {
  const part = await classifyPart("text", { kind: "text", text });
  const unanalysed = unanalysedParts([part]);
  const report = buildReport({ categories: part.judgements, thresholds: DEFAULT_THRESHOLDS, notes: part.notes });
  return { part, unanalysed, decision: failClosed(decide(report), unanalysed, "reject") };
}

describe("llm provider in the pipeline (fail closed)", () => {
  it("is the configured provider", () => {
    expect(configuredProviders().map((p) => p.id)).toEqual(["llm"]);
  });

  it("a working model judges the text and a clean text is approved; harassment is a coverage gap, not a failure", async () => {
    fake.setModel(() => ({ reply: { content: "safe" } }));
    const { part, unanalysed, decision } = await decisionFor("What a lovely day.");
    expect(part.judgements.hate).toEqual({ status: "evaluated", score: 0.1 });
    expect(part.judgements.harassment).toEqual({ status: "not-evaluated", reason: "not-supported" });
    expect(unanalysed).toEqual([]);
    expect(decision).toMatchObject({ status: "approved", notAnalysed: null });
  });

  it("a model that keeps failing leaves its categories unavailable and the asset rejected for review", async () => {
    fake.setModel(() => ({ status: 500, message: "CUDA out of memory" }));
    const { part, unanalysed, decision } = await decisionFor("What a lovely day.");
    for (const c of ["sexual", "violence", "self-harm", "hate", "criminal-activity"] as const) {
      expect(part.judgements[c]).toEqual({ status: "not-evaluated", reason: "unavailable" });
    }
    expect(unanalysed).toEqual([
      { part: "text", categories: ["sexual", "violence", "self-harm", "hate", "criminal-activity"], reason: expect.stringMatching(/llm: HTTP 500/) },
    ]);
    expect(decision).toMatchObject({ status: "rejected", moderationAction: null, removeContent: false, notAnalysed: { action: "reject" } });
    expect(decision.notAnalysed?.summary).toMatch(/CUDA out of memory/);
  });

  it("a malformed answer fails closed the same way", async () => {
    fake.setModel(() => ({ reply: { content: "The text seems fine to me." } }));
    const { decision } = await decisionFor("What a lovely day.");
    expect(decision).toMatchObject({ status: "rejected", notAnalysed: { action: "reject" } });
    expect(decision.notAnalysed?.summary).toMatch(/not a Llama Guard verdict/);
  });

  it("a model slower than the time limit fails closed the same way", async () => {
    fake.setModel(() => ({ reply: { content: "safe" }, delayMs: 3000 }));
    const { decision } = await decisionFor("What a lovely day.");
    expect(decision).toMatchObject({ status: "rejected", notAnalysed: { action: "reject" } });
  });
});
