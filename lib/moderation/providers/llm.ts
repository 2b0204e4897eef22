import type { Category, QualifierKey } from "../report";
import { chatComplete, type ChatAnswer, type ChatEndpoint } from "@/lib/net/chat-completions";
import { detectFamily, LLM_PROMPTS_VERSION, MalformedAnswer, unsupportedModelReason, type FamilyAdapter, type FamilyVerdict, type LlmFamily } from "./llm-family";
import { gptOssSafeguardAdapter } from "./llm-gpt-oss-safeguard";
import { llamaGuardAdapter } from "./llm-llama-guard";
import { shieldGemmaAdapter } from "./llm-shieldgemma";
import { ProviderError, type CategoryScore, type ClassifierProvider, type ClassifyOptions, type MediaKind, type ProviderInput, type ProviderResult } from "./types";

/**
 * The `llm` provider: a safety model served behind an OpenAI-compatible chat-completions endpoint
 * (Ollama, vLLM, llama.cpp), one of three families, each with its prompt, its strict answer format
 * and its mapping onto our categories (llm-llama-guard.ts, llm-shieldgemma.ts,
 * llm-gpt-oss-safeguard.ts; docs/api.md "Classifier providers" has the table).
 *
 * - Text only: no family is used for images here, so images and frames are `not-supported` by it.
 * - Long text is split into pieces of at most `maxInputChars` (at whitespace, overlapping a little
 *   so a sentence cut in two is also seen whole): servers silently drop what does not fit their
 *   context window, and Ollama drops the start, where the instructions are. Each piece is judged;
 *   a category's score is its highest over the pieces. Text needing more than `maxChunks` pieces is
 *   refused (`unavailable`), not judged in part.
 * - Requests run at most CONCURRENCY at a time; the first one that fails (after its retries) stops
 *   the others and fails the whole classification, so no category is scored on part of the text.
 */

export interface LlmProviderConfig {
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Detected from the model name when absent. */
  family?: LlmFamily;
  attemptTimeoutMs: number;
  retries: number;
  maxInputChars: number;
  maxChunks: number;
  /** Default 250 ms. */
  retryDelayMs?: number;
  /** Provider id in the report notes; default "llm". */
  id?: string;
}

const ADAPTERS: Readonly<Record<LlmFamily, FamilyAdapter>> = {
  "llama-guard": llamaGuardAdapter,
  shieldgemma: shieldGemmaAdapter,
  "gpt-oss-safeguard": gptOssSafeguardAdapter,
};

const CONCURRENCY = 4;

export function createLlmProvider(config: LlmProviderConfig): ClassifierProvider {
  const family = config.family ?? detectFamily(config.model);
  if (!family) {
    throw new Error(`SIEVE_LLM_MODEL "${config.model}": its family cannot be told from the name; set SIEVE_LLM_FAMILY to llama-guard, shieldgemma or gpt-oss-safeguard`);
  }
  const refused = unsupportedModelReason(config.model, family);
  if (refused) throw new Error(`SIEVE_LLM_MODEL: ${refused}`);
  const adapter = ADAPTERS[family];
  const id = config.id ?? "llm";
  const endpoint: ChatEndpoint = {
    providerId: id,
    baseUrl: config.baseUrl,
    model: config.model,
    apiKey: config.apiKey || undefined,
    attemptTimeoutMs: config.attemptTimeoutMs,
    retries: config.retries,
    retryDelayMs: config.retryDelayMs ?? 250,
  };

  const supports = (kind: MediaKind): readonly Category[] => (kind === "text" ? adapter.categories : []);

  async function classify(input: ProviderInput, options: ClassifyOptions): Promise<ProviderResult> {
    if (input.kind !== "text") throw new ProviderError(id, "malformed", `the llm provider judges text only, not ${input.kind} input`);
    const deadline = Date.now() + options.timeoutMs;
    if (input.text.trim() === "") {
      const categories = Object.fromEntries(adapter.categories.map((c) => [c, { score: 0 }]));
      return { categories, details: { family, model: config.model, empty: true } };
    }
    if (input.text.length > config.maxInputChars * config.maxChunks) throw tooLong(input.text.length);
    const pieces = splitText(input.text, config.maxInputChars);
    if (pieces.length > config.maxChunks) throw tooLong(input.text.length);

    // A piece is read as soon as its last answer is in, so a malformed answer stops the rest early.
    const requests = pieces.map((piece) => adapter.requests(piece));
    const answers = requests.map((list) => new Array<ChatAnswer>(list.length));
    const outstanding = requests.map((list) => list.length);
    const verdicts = new Array<FamilyVerdict>(pieces.length);
    const jobs = requests.flatMap((list, piece) => list.map((request, slot) => ({ piece, slot, request })));
    await runPool(jobs, CONCURRENCY, options.signal, async ({ piece, slot, request }, signal) => {
      answers[piece]![slot] = await chatComplete(endpoint, request, { signal, deadline });
      outstanding[piece]! -= 1;
      if (outstanding[piece] === 0) verdicts[piece] = interpret(adapter, answers[piece]!, id);
    });
    return {
      categories: highestPerCategory(verdicts),
      details: { family, model: config.model, ...(pieces.length > 1 && { pieces: pieces.length }), verdicts: verdicts.map((v) => v.details) },
    };
  }

  function tooLong(length: number): ProviderError {
    const limit = config.maxInputChars * config.maxChunks;
    return new ProviderError(id, "malformed", `text of ${length} characters is longer than this provider judges (about ${limit}: SIEVE_LLM_MAX_INPUT_CHARS × SIEVE_LLM_MAX_CHUNKS)`);
  }

  return { id, version: `${config.model} (${family}, ${LLM_PROMPTS_VERSION})`, supports, classify };
}

function interpret(adapter: FamilyAdapter, answers: readonly ChatAnswer[], id: string): FamilyVerdict {
  try {
    return adapter.interpret(answers);
  } catch (error) {
    if (error instanceof MalformedAnswer) throw new ProviderError(id, "malformed", error.message, { cause: error });
    throw error;
  }
}

function highestPerCategory(verdicts: readonly FamilyVerdict[]): Partial<Record<Category, CategoryScore>> {
  const merged: Partial<Record<Category, CategoryScore>> = {};
  for (const verdict of verdicts) {
    for (const [category, value] of Object.entries(verdict.categories) as [Category, CategoryScore][]) {
      const previous = merged[category];
      const qualifiers: Partial<Record<QualifierKey, number>> = { ...previous?.qualifiers };
      for (const [key, score] of Object.entries(value.qualifiers ?? {}) as [QualifierKey, number][]) qualifiers[key] = Math.max(qualifiers[key] ?? 0, score);
      const score = Math.max(previous?.score ?? 0, value.score);
      merged[category] = Object.keys(qualifiers).length > 0 ? { score, qualifiers } : { score };
    }
  }
  return merged;
}

/**
 * Pieces of at most `maxChars` characters covering the text, cut after whitespace where there is
 * some in the second half of a piece, each next piece starting up to ~10% (≤ 200 characters) before
 * the previous cut, at a word start. Never splits a UTF-16 surrogate pair.
 */
export function splitText(text: string, maxChars: number): string[] {
  const overlap = Math.min(200, Math.floor(maxChars / 10));
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + maxChars);
    if (end < text.length) {
      const cut = afterLastWhitespace(text, start + Math.floor(maxChars / 2), end);
      if (cut > 0) end = cut;
      else if (isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    }
    pieces.push(text.slice(start, end));
    if (end >= text.length) break;
    const from = end - overlap;
    const space = text.slice(from, end).search(/\s/);
    start = space >= 0 ? from + space + 1 : end;
  }
  return pieces;
}

function afterLastWhitespace(text: string, from: number, to: number): number {
  for (let i = to - 1; i >= from; i--) if (/\s/.test(text[i]!)) return i + 1;
  return -1;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Runs `run` over the items, `limit` at a time, in order; the first failure aborts the rest and is thrown. */
async function runPool<T>(items: readonly T[], limit: number, signal: AbortSignal | undefined, run: (item: T, signal: AbortSignal) => Promise<void>): Promise<void> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (!failure && next < items.length) {
      const index = next++;
      try {
        await run(items[index]!, controller.signal);
      } catch (error) {
        failure ??= { error };
        controller.abort();
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  if (failure) throw failure.error;
}
