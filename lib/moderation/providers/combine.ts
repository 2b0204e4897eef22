import type { z } from "zod";
import { CATEGORIES, QUALIFIER_KEYS, type Category, type CategoryJudgement, type QualifierKey } from "../report";
import { ProviderError, type ClassifierProvider, type ClassifyOptions, type ProviderInput, type ProviderResult } from "./types";
import { errorMessage } from "@/lib/core/errors";

/**
 * Runs several providers on one input and combines their results per category:
 * - score (and each qualifier score) = the maximum over the providers that judged the category;
 * - `evaluated` when every provider supporting the category judged it, `partial` when some of them
 *   failed (or omitted a category they declared) but at least one judged it;
 * - `not-evaluated`/`unavailable` when every supporting provider failed or timed out;
 * - `not-evaluated`/`not-supported` when no provider supports the category for this media kind.
 * Scores for categories a provider did not declare in `supports` are ignored (and noted);
 * a result with a score outside 0..1 is treated as a provider failure (malformed).
 * combine itself enforces `timeoutMs` even when a provider ignores its signal.
 */

export type ProviderOutcome =
  | { status: "ok"; scores: Partial<Record<Category, number>>; ignored?: Category[]; details?: z.core.util.JSONType }
  | { status: "unavailable"; error: { code: string; message: string } }
  | { status: "not-applicable" };

export interface ProviderNote {
  id: string;
  version: string;
  outcome: ProviderOutcome;
  durationMs: number;
}

export interface CombinedResult {
  /** Every category, ready for buildReport. */
  categories: Record<Category, CategoryJudgement>;
  /** Which provider said what (recorded in the report notes). */
  providers: ProviderNote[];
}

type Settled = { ok: true; result: ProviderResult } | { ok: false; error: ProviderError };

async function runOne(provider: ClassifierProvider, input: ProviderInput, options: ClassifyOptions): Promise<Settled> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Settled>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new ProviderError(provider.id, "timeout", `timed out after ${options.timeoutMs} ms`));
      resolve({ ok: false, error: new ProviderError(provider.id, "timeout", `timed out after ${options.timeoutMs} ms`) });
    }, options.timeoutMs);
  });
  const run = (async (): Promise<Settled> => {
    try {
      return { ok: true, result: await provider.classify(input, { signal: controller.signal, timeoutMs: options.timeoutMs }) };
    } catch (error) {
      if (error instanceof ProviderError) return { ok: false, error };
      const message = errorMessage(error);
      const code = options.signal?.aborted ? "aborted" : "network";
      return { ok: false, error: new ProviderError(provider.id, code, message, { cause: error }) };
    }
  })();
  try {
    return await Promise.race([run, timeout]);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

function validScore(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 1;
}

function checkResult(provider: ClassifierProvider, result: ProviderResult): void {
  for (const [category, value] of Object.entries(result?.categories ?? {})) {
    if (!value) continue;
    if (!validScore(value.score)) throw new ProviderError(provider.id, "malformed", `score for ${category} is not in 0..1`);
    for (const [key, q] of Object.entries(value.qualifiers ?? {})) {
      if (q === undefined) continue;
      if (!(QUALIFIER_KEYS as readonly string[]).includes(key)) throw new ProviderError(provider.id, "malformed", `unknown qualifier ${key}`);
      if (!validScore(q)) throw new ProviderError(provider.id, "malformed", `qualifier ${key} of ${category} is not in 0..1`);
    }
  }
}

export async function combineProviders(
  providers: readonly ClassifierProvider[],
  input: ProviderInput,
  options: ClassifyOptions,
): Promise<CombinedResult> {
  const runs = providers.map(async (provider) => {
    const supported = new Set(provider.supports(input.kind));
    if (supported.size === 0) return { provider, supported, settled: null, durationMs: 0 };
    const started = performance.now();
    let settled = await runOne(provider, input, options);
    if (settled.ok) {
      try {
        checkResult(provider, settled.result);
      } catch (error) {
        settled = { ok: false, error: error as ProviderError };
      }
    }
    return { provider, supported, settled, durationMs: Math.round(performance.now() - started) };
  });
  const outcomes = await Promise.all(runs);

  const notes: ProviderNote[] = outcomes.map(({ provider, supported, settled, durationMs }) => {
    const base = { id: provider.id, version: provider.version, durationMs };
    if (settled === null) return { ...base, outcome: { status: "not-applicable" } };
    if (!settled.ok) return { ...base, outcome: { status: "unavailable", error: { code: settled.error.code, message: settled.error.message } } };
    const scores: Partial<Record<Category, number>> = {};
    const ignored: Category[] = [];
    for (const c of CATEGORIES) {
      const value = settled.result.categories[c];
      if (value === undefined) continue;
      if (supported.has(c)) scores[c] = value.score;
      else ignored.push(c);
    }
    const outcome: ProviderOutcome = { status: "ok", scores };
    if (ignored.length > 0) outcome.ignored = ignored;
    if (settled.result.details !== undefined) outcome.details = settled.result.details;
    return { ...base, outcome };
  });

  const categories = {} as Record<Category, CategoryJudgement>;
  for (const c of CATEGORIES) {
    const supporters = outcomes.filter((o) => o.supported.has(c));
    if (supporters.length === 0) {
      categories[c] = { status: "not-evaluated", reason: "not-supported" };
      continue;
    }
    let score: number | undefined;
    let judgedBy = 0;
    const qualifiers: Partial<Record<QualifierKey, number>> = {};
    for (const { settled } of supporters) {
      const value = settled?.ok ? settled.result.categories[c] : undefined;
      if (value === undefined) continue;
      judgedBy += 1;
      score = Math.max(score ?? 0, value.score);
      for (const [key, q] of Object.entries(value.qualifiers ?? {}) as [QualifierKey, number | undefined][]) {
        if (q !== undefined) qualifiers[key] = Math.max(qualifiers[key] ?? 0, q);
      }
    }
    if (score === undefined) {
      categories[c] = { status: "not-evaluated", reason: "unavailable" };
      continue;
    }
    const judgement: CategoryJudgement = { status: judgedBy === supporters.length ? "evaluated" : "partial", score };
    if (Object.keys(qualifiers).length > 0) judgement.qualifiers = qualifiers;
    categories[c] = judgement;
  }
  return { categories, providers: notes };
}

/** The provider notes as JSON for the report `notes` field. */
export function providerNotesJson(notes: readonly ProviderNote[]): z.core.util.JSONType {
  return JSON.parse(JSON.stringify({ providers: notes })) as z.core.util.JSONType;
}
