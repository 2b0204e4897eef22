import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { providerError } from "@/tests/support/provider-errors";
import { startFakeChatCompletions, type FakeChatCompletions } from "@/tests/support/fake-chat-completions";
import { chatComplete, chatCompletionsUrl, type ChatEndpoint, type ChatRequest } from "@/lib/net/chat-completions";

// A server per test: requests a test aborted may still arrive after it ended, and must not count in the next.
let fake: FakeChatCompletions;
beforeEach(async () => {
  fake = await startFakeChatCompletions({ model: "llama-guard3:1b", apiKey: "key-123" });
});
afterEach(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.setModel(() => ({ reply: { content: "safe" } }));
});

const endpoint = (overrides: Partial<ChatEndpoint> = {}): ChatEndpoint => ({
  providerId: "llm",
  baseUrl: fake.baseUrl,
  model: "llama-guard3:1b",
  apiKey: "key-123",
  attemptTimeoutMs: 1000,
  retries: 2,
  retryDelayMs: 10,
  ...overrides,
});
const request: ChatRequest = { messages: [{ role: "user", content: "hello" }], maxTokens: 64, logprobs: true };
const soon = (ms = 3000) => ({ deadline: Date.now() + ms });

describe("chatComplete", () => {
  it("posts a non-streaming, deterministic chat request with the key and returns the text", async () => {
    const answer = await chatComplete(endpoint(), request, soon());
    expect(answer).toEqual({ content: "safe", finishReason: "stop", logprobs: null });
    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0]!;
    expect(sent).toMatchObject({ method: "POST", url: "/v1/chat/completions", authorization: "Bearer key-123" });
    expect(sent.body).toEqual({
      model: "llama-guard3:1b",
      messages: [{ role: "user", content: "hello" }],
      stream: false,
      temperature: 0,
      max_tokens: 64,
      logprobs: true,
      top_logprobs: 5,
    });
  });

  it("sends reasoning_effort when asked, no logprobs fields when not, and no Authorization without a key", async () => {
    const open = await startFakeChatCompletions({ model: "gpt-oss-safeguard:20b" });
    try {
      open.setModel(() => ({ reply: { content: "{}", reasoning: "thinking" } }));
      const ep = endpoint({ baseUrl: `${open.baseUrl}/`, model: "gpt-oss-safeguard:20b", apiKey: undefined });
      await chatComplete(ep, { messages: [{ role: "system", content: "policy" }], maxTokens: 10, logprobs: false, reasoningEffort: "low" }, soon());
      const sent = open.requests[0]!;
      expect(sent.authorization).toBeUndefined();
      expect(sent.body.reasoning_effort).toBe("low");
      expect(sent.body).not.toHaveProperty("logprobs");
      expect(sent.body).not.toHaveProperty("top_logprobs");
    } finally {
      await open.close();
    }
  });

  it("returns the first tokens' log probabilities when the server sends them", async () => {
    fake.setModel(() => ({ reply: { content: "unsafe\nS1", firstToken: [{ token: "unsafe", logprob: -0.1 }, { token: "safe", logprob: -2.4 }] } }));
    const answer = await chatComplete(endpoint(), request, soon());
    expect(answer.logprobs?.[0]).toEqual({ token: "unsafe", logprob: -0.1, topLogprobs: [{ token: "unsafe", logprob: -0.1 }, { token: "safe", logprob: -2.4 }] });
  });

  it("retries HTTP 500 and 429 and then succeeds", async () => {
    fake.queue({ status: 500 }, { status: 429 });
    expect((await chatComplete(endpoint(), request, soon())).content).toBe("safe");
    expect(fake.requests).toHaveLength(3);
  });

  it("gives up after its retries with the last HTTP error", async () => {
    fake.setModel(() => ({ status: 503, message: "loading model" }));
    const error = await providerError(chatComplete(endpoint({ retries: 1 }), request, soon()));
    expect(error).toMatchObject({ code: "http", status: 503 });
    expect(fake.requests).toHaveLength(2);
  });

  it("does not retry 401, 404 (unknown model) or 400", async () => {
    expect(await providerError(chatComplete(endpoint({ apiKey: "wrong-key" }), request, soon()))).toMatchObject({ code: "http", status: 401 });
    expect(await providerError(chatComplete(endpoint({ model: "other" }), request, soon()))).toMatchObject({ code: "http", status: 404 });
    expect(fake.requests).toHaveLength(2);
  });

  it("a 401 message does not carry the key", async () => {
    const error = await providerError(chatComplete(endpoint({ apiKey: "sk-do-not-leak" }), request, soon()));
    expect(error.message).not.toContain("sk-do-not-leak");
  });

  it("an attempt slower than its time limit is retried, and succeeds when the next one is quick", async () => {
    fake.queue({ reply: { content: "safe" }, delayMs: 2500 });
    const started = Date.now();
    expect((await chatComplete(endpoint({ attemptTimeoutMs: 100 }), request, soon())).content).toBe("safe");
    expect(Date.now() - started).toBeLessThan(1500);
    expect(fake.requests).toHaveLength(2);
  });

  it("always slow → timeout within the deadline", async () => {
    fake.setModel(() => ({ reply: { content: "safe" }, delayMs: 2000 }));
    const started = Date.now();
    const error = await providerError(chatComplete(endpoint({ attemptTimeoutMs: 100 }), request, soon(250)));
    expect(error.code).toBe("timeout");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("a body that stalls after the headers counts against the attempt's time limit", async () => {
    fake.setModel(() => ({ reply: { content: "safe" }, stallBodyMs: 2000 }));
    const error = await providerError(chatComplete(endpoint({ attemptTimeoutMs: 100, retries: 0 }), request, soon()));
    expect(error.code).toBe("timeout");
  });

  it("caller abort → aborted, also while waiting to retry", async () => {
    fake.setModel(() => ({ hang: true }));
    const controller = new AbortController();
    const pending = chatComplete(endpoint(), request, { signal: controller.signal, deadline: Date.now() + 5000 });
    setTimeout(() => controller.abort(), 30);
    expect((await providerError(pending)).code).toBe("aborted");

    fake.setModel(() => ({ status: 500 }));
    const waiting = new AbortController();
    const retrying = chatComplete(endpoint({ retryDelayMs: 2000 }), request, { signal: waiting.signal, deadline: Date.now() + 10_000 });
    setTimeout(() => waiting.abort(), 100);
    expect((await providerError(retrying)).code).toBe("aborted");
  });

  it("an unreachable server → network error (after its retries)", async () => {
    expect((await providerError(chatComplete(endpoint({ baseUrl: "http://127.0.0.1:1/v1" }), request, soon()))).code).toBe("network");
  });

  it.each([
    ["not JSON", { raw: "<html>bad gateway</html>" }],
    ["no choices", { raw: JSON.stringify({ id: "x", choices: [] }) }],
    ["two choices", { raw: JSON.stringify({ choices: [{ message: { content: "safe" } }, { message: { content: "unsafe" } }] }) }],
    ["a null content", { raw: JSON.stringify({ choices: [{ message: { content: null }, finish_reason: "stop" }] }) }],
    ["an empty content", { reply: { content: "  \n" } }],
    ["a positive log probability", { raw: JSON.stringify({ choices: [{ message: { content: "safe" }, logprobs: { content: [{ token: "safe", logprob: 0.5 }] } }] }) }],
    ["a body over 2 MiB", { raw: JSON.stringify({ choices: [{ message: { content: "x".repeat(2 * 1024 * 1024) } }] }) }],
    ["bytes that are not UTF-8", { raw: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) }],
  ] as const)("malformed and not retried: %s", async (_name, behaviour) => {
    fake.setModel(() => behaviour);
    expect(await providerError(chatComplete(endpoint(), request, soon()))).toMatchObject({ code: "malformed", providerId: "llm" });
    expect(fake.requests).toHaveLength(1);
  });

  it("an answer cut off by the token limit while reasoning says so", async () => {
    fake.setModel(() => ({ reply: { content: "", finishReason: "length", reasoning: "…" } }));
    expect((await providerError(chatComplete(endpoint(), request, soon()))).message).toMatch(/empty \(cut off by the token limit/);
  });

  it("builds the URL from a base URL with or without a trailing slash", () => {
    expect(chatCompletionsUrl("http://localhost:11434/v1/")).toBe("http://localhost:11434/v1/chat/completions");
    expect(chatCompletionsUrl("http://localhost:8000/v1")).toBe("http://localhost:8000/v1/chat/completions");
  });
});
