import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local stand-in for an OpenAI-compatible chat-completions server (what Ollama, vLLM and
 * llama-server expose at /v1/chat/completions), for the `llm` provider's tests. It checks requests
 * the way those servers do (JSON body, `model` being served, `messages` of {role, content},
 * non-streaming, parameter types; a Bearer key when one is set) and answers with `chat.completion`
 * objects: `choices[0].message.content`, `finish_reason`, and `logprobs.content[]` with
 * `top_logprobs` when the request asked for them and the reply scripts the first token's
 * alternatives. Errors use OpenAI's `{error:{message,type,param,code}}` body.
 *
 * What the "model" answers is the test's: `setModel(request => behaviour)`, and `queue(...)` for
 * one-shot behaviours used first (HTTP 500 then success, a slow answer, garbage).
 */

export interface ChatReply {
  content: string;
  finishReason?: "stop" | "length";
  /** The first generated token's alternatives, the chosen one first; without it no logprobs are sent. */
  firstToken?: { token: string; logprob: number }[];
  /** gpt-oss reasoning, sent as `message.reasoning` the way Ollama does. */
  reasoning?: string;
}

export type FakeBehaviour =
  | { reply: ChatReply; delayMs?: number; stallBodyMs?: number }
  | { status: number; message?: string }
  | { raw: string | Uint8Array; status?: number; contentType?: string }
  | { hang: true };

export interface RecordedChatRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  body: any;
}

export interface FakeChatCompletions {
  /** e.g. http://127.0.0.1:PORT/v1 */
  baseUrl: string;
  model: string;
  requests: RecordedChatRequest[];
  setModel(model: (request: RecordedChatRequest) => FakeBehaviour): void;
  queue(...behaviours: FakeBehaviour[]): void;
  /** The user message of a recorded request (the text or prompt the model saw). */
  userContent(request: RecordedChatRequest): string;
  close(): Promise<void>;
}

const ROLES = new Set(["system", "developer", "user", "assistant"]);
const EFFORTS = new Set(["low", "medium", "high"]);

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function openAIError(res: http.ServerResponse, status: number, message: string, type = "invalid_request_error", code: string | null = null): void {
  sendJson(res, status, { error: { message, type, param: null, code } });
}

/** OpenAI's content parts: text, and images as data: or http(s) URLs. */
function validParts(content: unknown): boolean {
  if (!Array.isArray(content) || content.length === 0) return false;
  return content.every(
    (part) =>
      (part?.type === "text" && typeof part.text === "string") ||
      (part?.type === "image_url" && typeof part.image_url?.url === "string" && /^(data:image\/[a-z+.-]+;base64,|https?:\/\/)/.test(part.image_url.url)),
  );
}

/** Why the body is not a valid non-streaming chat-completions request, or null. */
function invalidRequest(body: any): string | null {
  if (!body || typeof body !== "object" || Array.isArray(body)) return "body must be a JSON object";
  if (typeof body.model !== "string" || body.model === "") return "model is required";
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "messages must be a non-empty array";
  for (const m of body.messages) {
    if (!m || !ROLES.has(m.role) || !(typeof m.content === "string" || validParts(m.content))) {
      return "each message needs a role and content: a string, or parts of {type: text, text} and {type: image_url, image_url: {url}}";
    }
  }
  if (body.stream !== undefined && body.stream !== false) return "this fake does not stream";
  if (body.temperature !== undefined && (typeof body.temperature !== "number" || body.temperature < 0 || body.temperature > 2)) return "temperature must be 0..2";
  if (body.max_tokens !== undefined && !(Number.isInteger(body.max_tokens) && body.max_tokens > 0)) return "max_tokens must be a positive integer";
  if (body.logprobs !== undefined && typeof body.logprobs !== "boolean") return "logprobs must be a boolean";
  if (body.top_logprobs !== undefined && (!Number.isInteger(body.top_logprobs) || body.top_logprobs < 0 || body.top_logprobs > 20 || body.logprobs !== true)) {
    return "top_logprobs must be 0..20 and needs logprobs: true";
  }
  if (body.reasoning_effort !== undefined && !EFFORTS.has(body.reasoning_effort)) return "reasoning_effort must be low, medium or high";
  return null;
}

function logprobsFor(reply: ChatReply, body: any): unknown {
  if (body.logprobs !== true || !reply.firstToken || reply.firstToken.length === 0) return null;
  const top = body.top_logprobs ?? 0;
  const [chosen] = reply.firstToken;
  const rest = reply.content.trimStart().slice(chosen!.token.trim().length).match(/\s*\S+|\s+/g) ?? [];
  return {
    content: [
      { token: chosen!.token, logprob: chosen!.logprob, bytes: null, top_logprobs: reply.firstToken.slice(0, top).map((t) => ({ ...t, bytes: null })) },
      ...rest.map((token) => ({ token, logprob: -0.001, bytes: null, top_logprobs: top > 0 ? [{ token, logprob: -0.001, bytes: null }] : [] })),
    ],
  };
}

export async function startFakeChatCompletions(options: { model: string; apiKey?: string }): Promise<FakeChatCompletions> {
  const requests: RecordedChatRequest[] = [];
  const queued: FakeBehaviour[] = [];
  let model: (request: RecordedChatRequest) => FakeBehaviour = () => ({ reply: { content: "" } });
  let counter = 0;
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        body = undefined;
      }
      const request: RecordedChatRequest = { method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization, body };
      requests.push(request);

      if (req.method !== "POST" || req.url !== "/v1/chat/completions") return openAIError(res, 404, "404 page not found");
      if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
        return openAIError(res, 401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key");
      }
      const invalid = invalidRequest(body);
      if (invalid) return openAIError(res, 400, invalid);
      if (body.model !== options.model) return openAIError(res, 404, `model "${body.model}" not found, try pulling it first`, "api_error");

      const behaviour = queued.shift() ?? model(request);
      if ("hang" in behaviour) return; // never answers; close() drops the connection
      if ("status" in behaviour && !("raw" in behaviour)) return openAIError(res, behaviour.status, behaviour.message ?? "server error", "api_error");
      if ("raw" in behaviour) {
        res.writeHead(behaviour.status ?? 200, { "content-type": behaviour.contentType ?? "application/json" });
        return res.end(behaviour.raw);
      }
      const { reply } = behaviour;
      counter += 1;
      const completion = {
        id: `chatcmpl-${counter}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: options.model,
        system_fingerprint: "fp_fake",
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: reply.content, ...(reply.reasoning !== undefined && { reasoning: reply.reasoning }) },
            finish_reason: reply.finishReason ?? "stop",
            logprobs: logprobsFor(reply, body),
          },
        ],
        usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 },
      };
      const send = () => {
        if (!behaviour.stallBodyMs) return sendJson(res, 200, completion);
        res.writeHead(200, { "content-type": "application/json" });
        res.write(" "); // headers and a first byte now, the body much later
        later(behaviour.stallBodyMs, () => res.end(JSON.stringify(completion)));
      };
      if (behaviour.delayMs) later(behaviour.delayMs, send);
      else send();
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    model: options.model,
    requests,
    setModel(next) {
      model = next;
    },
    queue(...behaviours) {
      queued.push(...behaviours);
    },
    userContent(request) {
      const messages = (request.body?.messages ?? []) as { role: string; content: string | { type: string; text?: string }[] }[];
      const content = messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
      return typeof content === "string" ? content : content.map((part) => part.text ?? "").join("");
    },
    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      queued.length = 0;
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
