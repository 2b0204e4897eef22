import { ProviderError } from "@/lib/core/provider-error";
import { chatComplete, type ChatEndpoint } from "@/lib/net/chat-completions";

/**
 * A sentence about an image from a vision-language model behind an OpenAI-compatible
 * chat-completions endpoint (Ollama with qwen2.5vl, llava or gemma3; vLLM; llama-server with a
 * multimodal projector): the image goes as a data: URL content part, the answer is one sentence.
 * The detector knows 80 things; a describer names the rest ("a dog running on a beach at sunset"),
 * and natural-language search reads its words. Strict: an empty answer, or one that is only
 * reasoning, is `malformed`; retries and time limits are the chat client's.
 */
export const DESCRIBE_PROMPT =
  "Describe this picture in one plain sentence of at most 40 words: the main things in it, what they are doing, " +
  "the place or scene, and notable colours. Answer with the sentence only.";
export const MAX_DESCRIPTION_CHARS = 400;
const MAX_TOKENS = 120;

export async function describeImage(jpeg: Buffer, endpoint: ChatEndpoint, control: { signal?: AbortSignal; deadline: number }): Promise<string> {
  const answer = await chatComplete(
    endpoint,
    {
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: DESCRIBE_PROMPT },
            { type: "image_url", image_url: { url: `data:image/jpeg;base64,${jpeg.toString("base64")}` } },
          ],
        },
      ],
      maxTokens: MAX_TOKENS,
      logprobs: false,
    },
    control,
  );
  const description = cleanDescription(answer.content);
  if (!description) throw new ProviderError(endpoint.providerId, "malformed", "the model answered with no description");
  return description;
}

/**
 * The answer as one line: reasoning blocks (`<think>…</think>`), a "Description:" label and
 * wrapping quotes dropped, white space collapsed, cut at a word boundary to MAX_DESCRIPTION_CHARS.
 */
export function cleanDescription(text: string): string {
  let clean = text
    .replace(/<think>[\s\S]*?(<\/think>|$)/gi, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^(description|caption)\s*:\s*/i, "")
    .replace(/^["'“‘](.*)["'”’]$/, "$1")
    .trim();
  if (clean.length > MAX_DESCRIPTION_CHARS) {
    const cut = clean.slice(0, MAX_DESCRIPTION_CHARS);
    const lastSpace = cut.lastIndexOf(" ");
    clean = `${(lastSpace > MAX_DESCRIPTION_CHARS / 2 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
  }
  return clean;
}
