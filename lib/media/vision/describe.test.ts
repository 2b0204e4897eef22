import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeChatCompletions, type FakeChatCompletions } from "@/tests/support/fake-chat-completions";
import { providerError } from "@/tests/support/provider-errors";
import type { ChatEndpoint } from "@/lib/net/chat-completions";
import { cleanDescription, describeImage, DESCRIBE_PROMPT, MAX_DESCRIPTION_CHARS } from "./describe";

const cat = readFileSync(path.join(process.cwd(), "tests/fixtures/vision/cat.jpg"));

let fake: FakeChatCompletions;
beforeEach(async () => {
  fake = await startFakeChatCompletions({ model: "qwen2.5vl:3b" });
});
afterEach(async () => {
  await fake.close();
});

const endpoint = (overrides: Partial<ChatEndpoint> = {}): ChatEndpoint => ({
  providerId: "describer",
  baseUrl: fake.baseUrl,
  model: "qwen2.5vl:3b",
  attemptTimeoutMs: 1000,
  retries: 1,
  retryDelayMs: 10,
  ...overrides,
});
const soon = () => ({ deadline: Date.now() + 5000 });

describe("describeImage", () => {
  it("sends the image as a data: URL part beside the prompt, and returns the model's sentence", async () => {
    fake.setModel(() => ({ reply: { content: "A ginger cat lying on a sofa." } }));
    expect(await describeImage(cat, endpoint(), soon())).toBe("A ginger cat lying on a sofa.");
    const body = fake.requests[0]!.body as { model: string; messages: { role: string; content: { type: string; text?: string; image_url?: { url: string } }[] }[]; max_tokens: number };
    expect(body.model).toBe("qwen2.5vl:3b");
    expect(body.messages).toHaveLength(1);
    const [text, image] = body.messages[0]!.content;
    expect(text).toEqual({ type: "text", text: DESCRIBE_PROMPT });
    expect(image!.type).toBe("image_url");
    expect(Buffer.from(image!.image_url!.url.replace(/^data:image\/jpeg;base64,/, ""), "base64").equals(cat)).toBe(true);
    expect(body.max_tokens).toBeGreaterThan(0);
  });

  it("an empty or reasoning-only answer is malformed; a server error is retried", async () => {
    fake.setModel(() => ({ reply: { content: "<think>a cat, probably</think>  " } }));
    expect(await providerError(describeImage(cat, endpoint(), soon()))).toMatchObject({ code: "malformed" });

    fake.setModel(() => ({ reply: { content: "A cat." } }));
    fake.queue({ status: 503, message: "model loading" });
    expect(await describeImage(cat, endpoint(), soon())).toBe("A cat.");
  });

  it("a model that does not answer in time fails with a timeout", async () => {
    fake.setModel(() => ({ hang: true }));
    expect(await providerError(describeImage(cat, endpoint({ attemptTimeoutMs: 200, retries: 0 }), soon()))).toMatchObject({ code: "timeout" });
  });
});

describe("cleanDescription", () => {
  it("keeps one line without labels, quotes or reasoning, cut at a word", () => {
    expect(cleanDescription('Description: "Two dogs\n on a  beach."')).toBe("Two dogs on a beach.");
    expect(cleanDescription("<think>hmm</think>A red car.")).toBe("A red car.");
    const long = cleanDescription(`${"word ".repeat(200)}end`);
    expect(long.length).toBeLessThanOrEqual(MAX_DESCRIPTION_CHARS + 1);
    expect(long.endsWith("word…")).toBe(true);
  });
});
