import { z } from "zod";
import {
  CATEGORIES,
  QUALIFIER_KEYS,
  reportSchema,
  type ASSET_TYPES,
  type Category,
  type CategoryEntry,
  type Likelihood,
  type NotEvaluatedReason,
  type QualifierKey,
  type Qualifiers,
  type Report,
  type ReportCategories,
  type ReportMedia,
  type SegmentSource,
} from "@/lib/assets/schemas";

/**
 * Building moderation reports. Their shape (the `report` field of an asset) is defined with the
 * Asset in lib/assets/report-schema.ts, which the OpenAPI document is generated from; the parts the
 * engine and the portal use are re-exported here.
 */
export { CATEGORIES, LIKELIHOODS, QUALIFIER_KEYS, reportSchema } from "@/lib/assets/schemas";
export type {
  Category,
  CategoryEntry,
  Likelihood,
  NotEvaluatedReason,
  QualifierKey,
  QualifierValue,
  Qualifiers,
  Report,
  ReportCategories,
  ReportMedia,
  SegmentSource,
} from "@/lib/assets/schemas";

export type AssetType = (typeof ASSET_TYPES)[number];

/** Asset types whose report carries `media`. */
export const MEDIA_ASSET_TYPES = ["audio", "video"] as const satisfies readonly AssetType[];

/** The report schema for one asset type: `media` is required for audio/video and absent otherwise. */
export function reportSchemaFor(assetType: AssetType) {
  const needsMedia = (MEDIA_ASSET_TYPES as readonly AssetType[]).includes(assetType);
  return reportSchema.superRefine((r, ctx) => {
    if (needsMedia && r.media === undefined) ctx.addIssue({ code: "custom", path: ["media"], message: `required for ${assetType}` });
    if (!needsMedia && r.media !== undefined) ctx.addIssue({ code: "custom", path: ["media"], message: `not allowed for ${assetType}` });
  });
}

/**
 * Likelihood bands (lower bound inclusive, upper bound exclusive):
 * [0, 0.15) very-unlikely · [0.15, 0.35) unlikely · [0.35, 0.6) possible · [0.6, 0.85) likely · [0.85, 1] very-likely.
 * The default flagging threshold (0.6, see policy.ts) is the start of `likely`.
 */
export const LIKELIHOOD_BANDS: readonly { below: number; likelihood: Likelihood }[] = [
  { below: 0.15, likelihood: "very-unlikely" },
  { below: 0.35, likelihood: "unlikely" },
  { below: 0.6, likelihood: "possible" },
  { below: 0.85, likelihood: "likely" },
];

export function likelihoodForScore(score: number): Likelihood {
  assertUnitScore(score, "score");
  for (const band of LIKELIHOOD_BANDS) if (score < band.below) return band.likelihood;
  return "very-likely";
}

function assertUnitScore(value: number, what: string): void {
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new RangeError(`${what} must be a number from 0 to 1 (got ${String(value)})`);
  }
}

/** What the providers concluded about one category (combine.ts produces these). */
export type CategoryJudgement =
  | {
      /** `partial`: judged, but not by every provider that supports the category (some failed). */
      status: "evaluated" | "partial";
      score: number;
      qualifiers?: Partial<Record<QualifierKey, number>>;
    }
  | { status: "not-evaluated"; reason: NotEvaluatedReason };

export type CategoryJudgements = Partial<Record<Category, CategoryJudgement>>;

/** Score at or above which a category counts as flagged; one per category. */
export type CategoryThresholds = Readonly<Record<Category, number>>;

export interface MediaInput {
  durationSeconds: number;
  frameIntervalSeconds: number;
  sampledFrames: number;
  audioTranscribed: boolean;
  segments: { source: SegmentSource; startSeconds: number; endSeconds: number; categories: CategoryJudgements }[];
}

export interface BuildReportInput {
  /** Per-category results; a category missing here was judged by no provider (not-evaluated / not-supported). */
  categories: CategoryJudgements;
  thresholds: CategoryThresholds;
  notes?: z.core.util.JSONType;
  media?: MediaInput;
}

function entryFor(judgement: CategoryJudgement | undefined, what: string): CategoryEntry {
  if (judgement === undefined) return { status: "not-evaluated", reason: "not-supported" };
  if (judgement.status === "not-evaluated") return { status: "not-evaluated", reason: judgement.reason };
  assertUnitScore(judgement.score, `${what} score`);
  const entry: CategoryEntry = { status: judgement.status, score: judgement.score, likelihood: likelihoodForScore(judgement.score) };
  const qualifierEntries = Object.entries(judgement.qualifiers ?? {}) as [QualifierKey, number | undefined][];
  const qualifiers: Qualifiers = {};
  for (const [key, score] of qualifierEntries) {
    if (score === undefined) continue;
    if (!(QUALIFIER_KEYS as readonly string[]).includes(key)) throw new RangeError(`${what}: unknown qualifier ${key}`);
    assertUnitScore(score, `${what} qualifier ${key}`);
    qualifiers[key] = { status: "evaluated", score, likelihood: likelihoodForScore(score) };
  }
  if (Object.keys(qualifiers).length > 0) entry.qualifiers = qualifiers;
  return entry;
}

function categoriesFor(judgements: CategoryJudgements, what: string): ReportCategories {
  return Object.fromEntries(CATEGORIES.map((c) => [c, entryFor(judgements[c], `${what}${c}`)])) as ReportCategories;
}

/** Categories whose evaluated or partial score reaches its threshold; not-evaluated categories never flag. */
export function categoriesOverThreshold(categories: ReportCategories, thresholds: CategoryThresholds): Category[] {
  return CATEGORIES.filter((c) => {
    const entry = categories[c];
    return entry.status !== "not-evaluated" && entry.score >= thresholds[c];
  });
}

/** Highest evaluated/partial score of a set of categories (0 when none was evaluated). */
function maxScore(categories: ReportCategories): number {
  let max = 0;
  for (const c of CATEGORIES) {
    const entry = categories[c];
    if (entry.status !== "not-evaluated") max = Math.max(max, entry.score);
  }
  return max;
}

/**
 * Categories flagged anywhere in a report (overall categories and, for media, any segment),
 * in CATEGORIES order.
 */
export function flaggedCategoriesOf(report: Pick<Report, "categories" | "media">, thresholds: CategoryThresholds): Category[] {
  const found = new Set(categoriesOverThreshold(report.categories, thresholds));
  for (const s of report.media?.segments ?? []) for (const c of categoriesOverThreshold(s.categories, thresholds)) found.add(c);
  return CATEGORIES.filter((c) => found.has(c));
}

/**
 * Assembles a report from per-category provider results. Never invents scores: a category no
 * provider judged is `not-evaluated`/`not-supported`, a provider failure stays `not-evaluated`/
 * `unavailable`. For media, the overall categories are the input's `categories` (the caller
 * aggregates segments); `flagged` and `score` also take segment scores into account.
 * Throws RangeError for scores outside 0..1 and an error if the result does not match the schema.
 */
export function buildReport(input: BuildReportInput): Report {
  const categories = categoriesFor(input.categories, "");
  let media: ReportMedia | undefined;
  if (input.media) {
    const { segments, ...rest } = input.media;
    media = { ...rest, segments: segments.map((s, i) => ({ ...s, categories: categoriesFor(s.categories, `segments[${i}].`) })) };
  }
  const score = Math.max(maxScore(categories), ...(media?.segments ?? []).map((s) => maxScore(s.categories)));
  const flagged = flaggedCategoriesOf({ categories, media }, input.thresholds).length > 0;
  const report: Report = { categories, flagged, score, notes: input.notes ?? null };
  if (media) report.media = media;
  return reportSchema.parse(report);
}
