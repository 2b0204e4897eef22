import { z } from "zod";
import type { Category, QualifierKey } from "../report";
import { ProviderError, type ClassifierProvider, type MediaKind, type ProviderInput, type ProviderResult } from "./types";
import { errorMessage } from "@/lib/core/errors";

/**
 * A provider speaking the OpenAI moderation API (POST {baseUrl}/moderations with {model, input};
 * images as `[{type:"image_url", image_url:{url: data URL}}]`), configured by base URL + key + model.
 *
 * Mapping of `results[0].category_scores` (each category = max of its parent and sub-scores):
 *   sexual, sexual/minors                                   → sexual
 *   violence, violence/graphic (qualifier graphic)          → violence
 *   self-harm, self-harm/intent (self-harm-thoughts),
 *     self-harm/instructions (self-harm-methods)            → self-harm
 *   harassment, harassment/threatening (harassment-threat)  → harassment
 *   hate, hate/threatening (hate-threat)                    → hate
 *   illicit, illicit/violent                                → criminal-activity
 * The raw scores go into the result details (so sexual/minors stays visible in the report notes).
 *
 * Supported media kinds: omni-moderation models judge all six categories for text and only
 * sexual, violence and self-harm for images/frames (OpenAI documents the others as text-only).
 * Other (legacy text-moderation) models: text only, without criminal-activity (no `illicit`).
 */

export interface OpenAIModerationConfig {
  /** e.g. https://api.openai.com/v1 (no trailing /moderations). */
  baseUrl: string;
  apiKey: string;
  /** Default omni-moderation-latest. */
  model?: string;
  /** Provider id in notes; default "openai-moderation". */
  id?: string;
}

interface Mapping {
  category: Category;
  parent: string;
  subs: { key: string; qualifier?: QualifierKey }[];
}

export const OPENAI_CATEGORY_MAPPING: readonly Mapping[] = [
  { category: "sexual", parent: "sexual", subs: [{ key: "sexual/minors" }] },
  { category: "violence", parent: "violence", subs: [{ key: "violence/graphic", qualifier: "graphic" }] },
  {
    category: "self-harm",
    parent: "self-harm",
    subs: [
      { key: "self-harm/intent", qualifier: "self-harm-thoughts" },
      { key: "self-harm/instructions", qualifier: "self-harm-methods" },
    ],
  },
  { category: "harassment", parent: "harassment", subs: [{ key: "harassment/threatening", qualifier: "harassment-threat" }] },
  { category: "hate", parent: "hate", subs: [{ key: "hate/threatening", qualifier: "hate-threat" }] },
  { category: "criminal-activity", parent: "illicit", subs: [{ key: "illicit/violent" }] },
];

const OMNI_TEXT: readonly Category[] = ["sexual", "violence", "self-harm", "harassment", "hate", "criminal-activity"];
const OMNI_IMAGE: readonly Category[] = ["sexual", "violence", "self-harm"];
const LEGACY_TEXT: readonly Category[] = ["sexual", "violence", "self-harm", "harassment", "hate"];

const responseSchema = z.object({
  model: z.string().optional(),
  results: z
    .array(z.object({ category_scores: z.record(z.string(), z.number().min(0).max(1).nullable()) }))
    .min(1),
});

function bytesToBase64(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64");
}

function requestInput(input: ProviderInput): unknown {
  if (input.kind === "text") return input.text;
  return [{ type: "image_url", image_url: { url: `data:${input.mimeType};base64,${bytesToBase64(input.data)}` } }];
}

export function createOpenAIModerationProvider(config: OpenAIModerationConfig): ClassifierProvider {
  const model = config.model ?? "omni-moderation-latest";
  const id = config.id ?? "openai-moderation";
  const omni = model.startsWith("omni-moderation");
  const url = `${config.baseUrl.replace(/\/+$/, "")}/moderations`;

  function supports(kind: MediaKind): readonly Category[] {
    if (kind === "text") return omni ? OMNI_TEXT : LEGACY_TEXT;
    return omni ? OMNI_IMAGE : [];
  }

  async function classify(input: ProviderInput, options: { signal?: AbortSignal; timeoutMs: number }): Promise<ProviderResult> {
    const wanted = supports(input.kind);
    if (wanted.length === 0) throw new ProviderError(id, "malformed", `model ${model} cannot classify ${input.kind} input`);
    const timeout = AbortSignal.timeout(options.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;

    let status: number;
    let text: string;
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { authorization: `Bearer ${config.apiKey}`, "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ model, input: requestInput(input) }),
        signal,
      });
      status = response.status;
      text = await response.text();
    } catch (error) {
      if (timeout.aborted) throw new ProviderError(id, "timeout", `no answer within ${options.timeoutMs} ms`, { cause: error });
      if (options.signal?.aborted) throw new ProviderError(id, "aborted", "request aborted", { cause: error });
      throw new ProviderError(id, "network", `request failed: ${errorMessage(error)}`, { cause: error });
    }

    if (status < 200 || status > 299) {
      throw new ProviderError(id, "http", `HTTP ${status}: ${text.slice(0, 200)}`, { status });
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new ProviderError(id, "malformed", "response is not JSON", { cause: error, status });
    }
    const parsed = responseSchema.safeParse(json);
    if (!parsed.success) throw new ProviderError(id, "malformed", `unexpected response shape: ${parsed.error.message}`, { status });
    const raw = parsed.data.results[0]?.category_scores ?? {};

    const categories: ProviderResult["categories"] = {};
    for (const mapping of OPENAI_CATEGORY_MAPPING) {
      if (!wanted.includes(mapping.category)) continue;
      const parentScore = raw[mapping.parent];
      if (typeof parentScore !== "number") {
        throw new ProviderError(id, "malformed", `category_scores has no "${mapping.parent}"`, { status });
      }
      let score = parentScore;
      const qualifiers: Partial<Record<QualifierKey, number>> = {};
      for (const sub of mapping.subs) {
        const subScore = raw[sub.key];
        if (typeof subScore !== "number") continue; // sub-categories are optional
        score = Math.max(score, subScore);
        if (sub.qualifier) qualifiers[sub.qualifier] = subScore;
      }
      categories[mapping.category] = Object.keys(qualifiers).length > 0 ? { score, qualifiers } : { score };
    }
    const rawScores: Record<string, number> = {};
    for (const [key, value] of Object.entries(raw)) if (typeof value === "number") rawScores[key] = value;
    return { categories, details: { model: parsed.data.model ?? model, categoryScores: rawScores } };
  }

  return { id, version: model, supports, classify };
}
