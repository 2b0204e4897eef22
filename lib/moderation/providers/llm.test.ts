import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { providerError } from "@/tests/support/provider-errors";
import { startFakeChatCompletions, type FakeChatCompletions } from "@/tests/support/fake-chat-completions";
import { createRulesTextProvider } from "../text/provider";
import { combineProviders } from "./combine";
import { createLlmProvider, splitText, type LlmProviderConfig } from "./llm";
import { loadConfig } from "@/lib/core/config";
import { detectFamily, LLM_FAMILIES, unsupportedModelReason } from "./llm-family";

/** The llm provider around its families: which family a model is, long text, empty text, combining. */

// A server per test: requests a test aborted may still arrive after it ended, and must not count in the next.
let fake: FakeChatCompletions;
beforeEach(async () => {
  fake = await startFakeChatCompletions({ model: "llama-guard3:8b" });
});
afterEach(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.setModel((request) => ({ reply: { content: /steal/.test(fake.userContent(request)) ? "unsafe\nS2" : "safe" } }));
});

const base: LlmProviderConfig = { baseUrl: "", model: "llama-guard3:8b", attemptTimeoutMs: 1000, retries: 2, retryDelayMs: 10, maxInputChars: 6000, maxChunks: 8 };
const provider = (overrides: Partial<LlmProviderConfig> = {}) => createLlmProvider({ ...base, baseUrl: fake.baseUrl, ...overrides });
const text = (t: string) => ({ kind: "text" as const, text: t });
const opts = { timeoutMs: 3000 };

describe("model families", () => {
  it.each([
    ["llama-guard3:1b", "llama-guard"],
    ["meta-llama/Llama-Guard-3-8B", "llama-guard"],
    ["Llama-Guard-4-12B", "llama-guard"],
    ["llamaguard3-8b-q4_k_m.gguf", "llama-guard"],
    ["shieldgemma:2b", "shieldgemma"],
    ["google/shieldgemma-9b", "shieldgemma"],
    ["gpt-oss-safeguard:20b", "gpt-oss-safeguard"],
    ["openai/gpt-oss-safeguard-120b", "gpt-oss-safeguard"],
    ["gpt-oss:20b", null],
    ["llama3.1:8b", null],
  ])("%s → %s", (model, family) => {
    expect(detectFamily(model)).toBe(family);
  });

  it("refuses models whose taxonomy or modality the mappings would misread", () => {
    expect(unsupportedModelReason("llama-guard2", "llama-guard")).toMatch(/Llama Guard 1 or 2/);
    expect(unsupportedModelReason("meta-llama/Meta-Llama-Guard-2-8B", "llama-guard")).toMatch(/Llama Guard 1 or 2/);
    expect(unsupportedModelReason("meta-llama/LlamaGuard-7b", "llama-guard")).toMatch(/Llama Guard 1 or 2/);
    expect(unsupportedModelReason("google/shieldgemma-2-4b-it", "shieldgemma")).toMatch(/images only/);
    expect(unsupportedModelReason("llama-guard3:1b", "llama-guard")).toBeNull();
    expect(unsupportedModelReason("shieldgemma-2b", "shieldgemma")).toBeNull();
    expect(() => createLlmProvider({ ...base, model: "llama-guard2:8b" })).toThrow(/SIEVE_LLM_MODEL: .*Llama Guard 1 or 2/);
  });

  it("a model name that tells nothing needs SIEVE_LLM_FAMILY, which then decides", () => {
    expect(() => createLlmProvider({ ...base, model: "my-moderator" })).toThrow(/set SIEVE_LLM_FAMILY/);
    expect(createLlmProvider({ ...base, model: "my-moderator", family: "shieldgemma" }).supports("text")).toEqual(["sexual", "harassment", "hate"]);
  });
});

describe("configuration", () => {
  const env = (vars: Record<string, string>) => vars as unknown as NodeJS.ProcessEnv;

  it("reads the SIEVE_LLM_* variables with their defaults", () => {
    const { llm } = loadConfig(env({ SIEVE_LLM_BASE_URL: "http://localhost:11434/v1", SIEVE_LLM_MODEL: "llama-guard3:1b" })).classifiers;
    expect(llm).toEqual({
      baseUrl: "http://localhost:11434/v1",
      model: "llama-guard3:1b",
      apiKey: undefined,
      family: undefined,
      attemptTimeoutMs: 10_000,
      retries: 2,
      maxInputChars: 6000,
      maxChunks: 8,
    });
  });

  it("accepts exactly the families the provider knows", () => {
    for (const family of LLM_FAMILIES) expect(loadConfig(env({ SIEVE_LLM_FAMILY: family })).classifiers.llm.family).toBe(family);
    expect(() => loadConfig(env({ SIEVE_LLM_FAMILY: "llama-guard-2" }))).toThrow(/SIEVE_LLM_FAMILY/);
    expect(() => loadConfig(env({ SIEVE_LLM_BASE_URL: "localhost:11434" }))).toThrow(/SIEVE_LLM_BASE_URL/);
  });
});

describe("splitText", () => {
  it("keeps short text whole", () => {
    expect(splitText("short text", 100)).toEqual(["short text"]);
  });

  it("covers the whole text in pieces within the limit, cut after whitespace, overlapping at word starts", () => {
    const words = Array.from({ length: 400 }, (_, i) => `word${i}`);
    const long = words.join(" ");
    const pieces = splitText(long, 500);
    expect(pieces.length).toBeGreaterThan(5);
    for (const piece of pieces) expect(piece.length).toBeLessThanOrEqual(500);
    for (const piece of pieces.slice(1)) expect(piece).toMatch(/^word\d+ /);
    for (const word of words) expect(pieces.some((p) => new RegExp(`(^|\\s)${word}(\\s|$)`).test(p))).toBe(true);
    const tailOfFirst = pieces[0]!.trimEnd().split(" ").at(-1)!;
    expect(pieces[1]).toContain(tailOfFirst);
  });

  it("hard-cuts text without whitespace, never inside a surrogate pair", () => {
    const emoji = "😀".repeat(300); // 600 UTF-16 units
    const pieces = splitText(emoji, 101);
    for (const piece of pieces) expect(piece.length % 2).toBe(0);
    expect(pieces.join("")).toBe(emoji);
  });
});

describe("llm provider around the families", () => {
  it("judges a long text piece by piece and keeps each category's highest score", async () => {
    const long = `${"A calm sentence about gardens. ".repeat(40)} Then: how do I steal a car.`;
    const result = await provider({ maxInputChars: 500 }).classify(text(long), opts);
    expect(fake.requests.length).toBeGreaterThan(2);
    for (const r of fake.requests) expect(fake.userContent(r).length).toBeLessThanOrEqual(500);
    expect(result.categories["criminal-activity"]).toEqual({ score: 0.8 });
    expect(result.categories.hate).toEqual({ score: 0.1 });
    expect(result.details).toMatchObject({ pieces: fake.requests.length });
  });

  it("refuses text needing more pieces than allowed, without asking the model", async () => {
    const error = await providerError(provider({ maxInputChars: 500, maxChunks: 2 }).classify(text("word ".repeat(300)), opts));
    expect(error.message).toMatch(/1500 characters is longer than this provider judges/);
    expect(fake.requests).toHaveLength(0);
  });

  it("empty text scores 0 without a request; images are refused", async () => {
    expect((await provider().classify(text("  \n "), opts)).categories.hate).toEqual({ score: 0 });
    expect(fake.requests).toHaveLength(0);
    const image = { kind: "image" as const, data: new Uint8Array([1]), mimeType: "image/png" };
    expect((await providerError(provider().classify(image, opts))).code).toBe("malformed");
  });

  it("one failed piece fails the whole text (never judged in part) and stops the rest", async () => {
    fake.setModel((request) => (/piece-1 /.test(fake.userContent(request)) ? { reply: { content: "no idea" } } : { reply: { content: "safe" }, delayMs: 1500 }));
    const pieces = Array.from({ length: 8 }, (_, i) => `piece-${i} ${"filler ".repeat(60)}`).join("");
    const started = Date.now();
    expect((await providerError(provider({ maxInputChars: 500 }).classify(text(pieces), opts))).code).toBe("malformed");
    expect(Date.now() - started).toBeLessThan(1000);
    expect(fake.requests.length).toBeLessThanOrEqual(4);
  });

  it("sends at most four requests at a time", async () => {
    let open = 0;
    let most = 0;
    let seen = 0;
    fake.setModel(() => {
      seen += 1;
      open += 1;
      most = Math.max(most, open);
      setTimeout(() => (open -= 1), 50);
      return { reply: { content: "safe" }, delayMs: 50 };
    });
    await provider({ maxInputChars: 500 }).classify(text("counted ".repeat(450)), opts);
    expect(seen).toBeGreaterThan(4);
    expect(most).toBe(4);
  });

  it("combined with the local text classifier: an llm failure leaves the local judgement, marked partial", async () => {
    fake.setModel(() => ({ status: 500 }));
    const result = await combineProviders([createRulesTextProvider(), provider({ retries: 0 })], text("I will hurt you"), opts);
    expect(result.categories.violence).toMatchObject({ status: "partial" });
    expect(result.categories.harassment).toMatchObject({ status: "evaluated" }); // Llama Guard does not claim harassment
    expect(result.providers.map((p) => [p.id, p.outcome.status])).toEqual([
      ["sieve-text-rules", "ok"],
      ["llm", "unavailable"],
    ]);
  });

  it("combined with the local text classifier: the higher score wins", async () => {
    const result = await combineProviders([createRulesTextProvider(), provider()], text("how do I steal a bike from the rack"), opts);
    expect(result.categories["criminal-activity"]).toMatchObject({ status: "evaluated" });
    expect((result.categories["criminal-activity"] as { score: number }).score).toBeGreaterThanOrEqual(0.8);
  });
});
