import http from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local stand-in for the OpenAI moderation API (POST /v1/moderations), speaking its documented
 * request/response format: `Authorization: Bearer <key>`, body `{model, input}` where input is a
 * string, an array of strings, or an array of `{type:"text",text}` / `{type:"image_url",image_url:{url}}`;
 * response `{id, model, results:[{flagged, categories, category_scores, category_applied_input_types}]}`.
 * Errors use OpenAI's `{error:{message,type,param,code}}` body.
 */

export const OPENAI_MODERATION_CATEGORIES = [
  "harassment",
  "harassment/threatening",
  "hate",
  "hate/threatening",
  "illicit",
  "illicit/violent",
  "self-harm",
  "self-harm/intent",
  "self-harm/instructions",
  "sexual",
  "sexual/minors",
  "violence",
  "violence/graphic",
] as const;
export type OpenAIModerationCategory = (typeof OPENAI_MODERATION_CATEGORIES)[number];

/** Categories that omni-moderation also judges for images. */
const IMAGE_CATEGORIES: readonly string[] = ["self-harm", "self-harm/intent", "self-harm/instructions", "sexual", "violence", "violence/graphic"];

/** ok: normal answers · fail: HTTP 500 · hang: never answer · garbage: 200 with non-JSON · bad-shape: 200 JSON without results. */
export type FakeMode = "ok" | "fail" | "hang" | "garbage" | "bad-shape";

export interface RecordedRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: unknown;
}

export interface FakeOpenAIModeration {
  /** e.g. http://127.0.0.1:PORT/v1 (the provider appends /moderations). */
  baseUrl: string;
  apiKey: string;
  requests: RecordedRequest[];
  /** Scores returned for the next requests; unspecified categories score 0.001. */
  setScores(scores: Partial<Record<OpenAIModerationCategory, number>>): void;
  setMode(mode: FakeMode): void;
  close(): Promise<void>;
}

function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function openAIError(res: http.ServerResponse, status: number, message: string, type: string, code: string | null = null): void {
  sendJson(res, status, { error: { message, type, param: null, code } });
}

type InputKind = "text" | "image";

/** The input kinds of a documented `input`, or null when the input is invalid. */
function inputKinds(input: unknown): InputKind[] | null {
  if (typeof input === "string") return ["text"];
  if (!Array.isArray(input) || input.length === 0) return null;
  const kinds: InputKind[] = [];
  for (const item of input) {
    if (typeof item === "string") kinds.push("text");
    else if (item && typeof item === "object" && item.type === "text" && typeof item.text === "string") kinds.push("text");
    else if (item && typeof item === "object" && item.type === "image_url" && typeof item.image_url?.url === "string") {
      if (!/^(data:image\/[a-z0-9.+-]+;base64,|https?:\/\/)/i.test(item.image_url.url)) return null;
      kinds.push("image");
    } else return null;
  }
  return kinds;
}

export async function startFakeOpenAIModeration(options: { apiKey?: string } = {}): Promise<FakeOpenAIModeration> {
  const apiKey = options.apiKey ?? "sk-test-fake-key";
  let scores: Partial<Record<OpenAIModerationCategory, number>> = {};
  let mode: FakeMode = "ok";
  const requests: RecordedRequest[] = [];
  let counter = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = raw;
      }
      requests.push({
        method: req.method ?? "",
        url: req.url ?? "",
        authorization: req.headers.authorization,
        contentType: req.headers["content-type"],
        body,
      });

      if (req.method !== "POST" || req.url !== "/v1/moderations") return openAIError(res, 404, "Not found", "invalid_request_error");
      if (req.headers.authorization !== `Bearer ${apiKey}`) {
        return openAIError(res, 401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key");
      }
      if (mode === "hang") return; // never answers; close() drops the connection
      if (mode === "fail") return openAIError(res, 500, "The server had an error while processing your request.", "server_error");
      if (mode === "garbage") {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end("<html>not json");
      }
      if (mode === "bad-shape") return sendJson(res, 200, { id: "modr-x", model: "omni-moderation-latest", results: [] });

      const payload = body as { model?: unknown; input?: unknown } | undefined;
      const kinds = inputKinds(payload?.input);
      if (!payload || kinds === null) return openAIError(res, 400, "Invalid value for 'input'.", "invalid_request_error");
      const model = typeof payload.model === "string" ? payload.model : "omni-moderation-latest";
      const hasImage = kinds.includes("image");

      const categoryScores: Record<string, number> = {};
      const categories: Record<string, boolean> = {};
      const applied: Record<string, string[]> = {};
      for (const c of OPENAI_MODERATION_CATEGORIES) {
        const imageCapable = IMAGE_CATEGORIES.includes(c);
        const judged = kinds.includes("text") || imageCapable;
        const score = judged ? (scores[c] ?? 0.001) : 0;
        categoryScores[c] = score;
        categories[c] = score >= 0.5;
        applied[c] = [...(kinds.includes("text") ? ["text"] : []), ...(hasImage && imageCapable ? ["image"] : [])];
      }
      counter += 1;
      sendJson(res, 200, {
        id: `modr-${counter}`,
        model,
        results: [
          {
            flagged: Object.values(categories).some(Boolean),
            categories,
            category_scores: categoryScores,
            category_applied_input_types: applied,
          },
        ],
      });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    apiKey,
    requests,
    setScores(next) {
      scores = { ...next };
    },
    setMode(next) {
      mode = next;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
    },
  };
}
