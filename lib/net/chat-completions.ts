import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { errorMessage } from "@/lib/core/errors";
import { ProviderError } from "@/lib/core/provider-error";

/**
 * One client for an OpenAI-compatible chat-completions endpoint (Ollama, vLLM, llama.cpp's
 * llama-server): POST {baseUrl}/chat/completions, non-streaming, temperature 0.
 *
 * Egress is the same as the OpenAI moderation provider's (openai.ts): Node's fetch, whose pooled
 * keep-alive connections suit one fixed endpoint, cancelled through AbortSignal. The URL comes from
 * the operator's configuration, not from an API client, so lib/net's SSRF policy does not apply (it
 * would refuse the usual loopback Ollama unless SIEVE_ALLOW_PRIVATE_NETWORKS opened private
 * networks to user-supplied URLs too).
 *
 * - Each attempt has its own time limit (SIEVE_LLM_TIMEOUT_MS) covering connect, headers and body;
 *   all attempts together end at the caller's deadline (the classifier time limit).
 * - Retried, with doubling waits: network errors, an attempt's timeout, HTTP 408, 429 and 5xx.
 *   Not retried: other HTTP errors (401, 404: configuration) and malformed answers (the model runs
 *   at temperature 0, so asking again gives the same answer).
 * - Strict: a body that is not JSON, not one choice with a text message, or over 2 MiB is
 *   `malformed`. What the text says is for the model family to read (llm-*.ts).
 */

export interface ChatEndpoint {
  providerId: string;
  /** Base URL such as http://localhost:11434/v1 (without /chat/completions). */
  baseUrl: string;
  model: string;
  /** Sent as a Bearer token when set (vLLM --api-key, hosted gateways); Ollama needs none. */
  apiKey?: string;
  attemptTimeoutMs: number;
  /** Further attempts after the first. */
  retries: number;
  /** Wait before the first retry; doubles for each further one. */
  retryDelayMs: number;
}

/** OpenAI's content parts: text, and an image (a data: URL) for models that see. */
export type ChatContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

export interface ChatMessage {
  role: "system" | "user";
  content: string | ChatContentPart[];
}

export interface ChatRequest {
  messages: ChatMessage[];
  maxTokens: number;
  /** Ask for each generated token's log probability and its top alternatives. */
  logprobs: boolean;
  /** gpt-oss models: how long they reason before answering. */
  reasoningEffort?: "low" | "medium" | "high";
}

export interface TokenAlternative {
  token: string;
  logprob: number;
}

export interface TokenLogprob extends TokenAlternative {
  topLogprobs: TokenAlternative[];
}

export interface ChatAnswer {
  content: string;
  finishReason: string | null;
  /** Null when the server returned none (older Ollama, or a server without logprobs). */
  logprobs: TokenLogprob[] | null;
}

export interface ChatControl {
  signal?: AbortSignal;
  /** Epoch milliseconds by which every attempt must be over. */
  deadline: number;
}

const MAX_RESPONSE_BYTES = 2 * 1024 * 1024;
const TOP_LOGPROBS = 5;

const logprob = z.number().max(0);
const alternativeSchema = z.object({ token: z.string(), logprob });
const envelopeSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullable().optional() }),
        finish_reason: z.string().nullable().optional(),
        logprobs: z
          .object({ content: z.array(alternativeSchema.extend({ top_logprobs: z.array(alternativeSchema).optional() })).nullable().optional() })
          .nullable()
          .optional(),
      }),
    )
    .length(1),
});

export function chatCompletionsUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/chat/completions`;
}

export async function chatComplete(endpoint: ChatEndpoint, request: ChatRequest, control: ChatControl): Promise<ChatAnswer> {
  const body = JSON.stringify({
    model: endpoint.model,
    messages: request.messages,
    stream: false,
    temperature: 0,
    max_tokens: request.maxTokens,
    ...(request.logprobs && { logprobs: true, top_logprobs: TOP_LOGPROBS }),
    ...(request.reasoningEffort && { reasoning_effort: request.reasoningEffort }),
  });
  for (let attempt = 0; ; attempt++) {
    const remaining = control.deadline - Date.now();
    if (remaining <= 0) throw new ProviderError(endpoint.providerId, "timeout", "no time left for another attempt");
    try {
      return await attemptOnce(endpoint, body, Math.min(endpoint.attemptTimeoutMs, remaining), control.signal);
    } catch (error) {
      const wait = endpoint.retryDelayMs * 2 ** attempt;
      const retry = error instanceof ProviderError && retryable(error) && attempt < endpoint.retries && Date.now() + wait < control.deadline;
      if (!retry || control.signal?.aborted) throw error;
      try {
        await sleep(wait, undefined, { signal: control.signal });
      } catch (cause) {
        throw new ProviderError(endpoint.providerId, "aborted", "request aborted", { cause });
      }
    }
  }
}

function retryable(error: ProviderError): boolean {
  if (error.code === "network" || error.code === "timeout") return true;
  return error.code === "http" && error.status !== undefined && (error.status === 408 || error.status === 429 || error.status >= 500);
}

async function attemptOnce(endpoint: ChatEndpoint, body: string, timeoutMs: number, signal: AbortSignal | undefined): Promise<ChatAnswer> {
  const id = endpoint.providerId;
  const timeout = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  let status: number;
  let text: string;
  try {
    const response = await fetch(chatCompletionsUrl(endpoint.baseUrl), { method: "POST", headers, body, signal: combined });
    status = response.status;
    text = await readLimited(response, id);
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    if (signal?.aborted) throw new ProviderError(id, "aborted", "request aborted", { cause: error });
    if (timeout.aborted) throw new ProviderError(id, "timeout", `no complete answer within ${timeoutMs} ms`, { cause: error });
    throw new ProviderError(id, "network", `request failed: ${errorMessage(error)}`, { cause: error });
  }
  if (status < 200 || status > 299) throw new ProviderError(id, "http", `HTTP ${status}: ${text.slice(0, 200)}`, { status });
  return parseEnvelope(text, id, status);
}

/** The body as UTF-8 text; a server that sends more than MAX_RESPONSE_BYTES is not answering a classification. */
async function readLimited(response: Response, id: string): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new ProviderError(id, "malformed", `answer larger than ${MAX_RESPONSE_BYTES} bytes`, { status: response.status });
    }
    chunks.push(value);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch (cause) {
    throw new ProviderError(id, "malformed", "answer is not UTF-8", { cause, status: response.status });
  }
}

function parseEnvelope(text: string, id: string, status: number): ChatAnswer {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new ProviderError(id, "malformed", "answer is not JSON", { cause, status });
  }
  const parsed = envelopeSchema.safeParse(json);
  if (!parsed.success) throw new ProviderError(id, "malformed", `not a chat completion: ${z.prettifyError(parsed.error).slice(0, 300)}`, { status });
  const choice = parsed.data.choices[0]!;
  const content = choice.message.content ?? "";
  if (content.trim() === "") {
    const why = choice.finish_reason === "length" ? " (cut off by the token limit, e.g. while reasoning)" : "";
    throw new ProviderError(id, "malformed", `the model's answer is empty${why}`, { status });
  }
  const tokens = choice.logprobs?.content;
  return {
    content,
    finishReason: choice.finish_reason ?? null,
    logprobs: tokens ? tokens.map((t) => ({ token: t.token, logprob: t.logprob, topLogprobs: t.top_logprobs ?? [] })) : null,
  };
}
