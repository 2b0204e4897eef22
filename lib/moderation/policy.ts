import { z } from "zod";
import { MODERATION_ACTIONS } from "@/lib/assets/schemas";
import { CATEGORIES, flaggedCategoriesOf, type Category, type CategoryThresholds, type Report } from "./report";

/**
 * Moderation policy: which categories count as flagged, and what happens to a flagged asset.
 *
 * - A category is flagged when its evaluated or partial score is >= its threshold (in the overall
 *   categories or, for media, in any segment). `not-evaluated` categories never flag; they are
 *   listed in `unavailableCategories` so the caller can decide whether to hold or retry.
 * - Default threshold: 0.6 for every category (the start of the `likely` likelihood band).
 *   Projects override single categories with a partial record (values 0..1).
 * - Actions (upload's `processingOptions.flaggedContentPolicy.action`, else the project default,
 *   else DEFAULT_ACTION):
 *     ignore → approved, moderationAction `ignore`, no asset.flagged event;
 *     alert  → approved, moderationAction `alert`, asset.flagged event with notify;
 *     hide   → rejected, moderationAction `hide`, asset.flagged event with notify;
 *     purge  → rejected, moderationAction `purge`, asset.flagged event with notify, content removed.
 *   Not flagged → approved, moderationAction null, no event.
 */

export type ModerationAction = (typeof MODERATION_ACTIONS)[number];

export const DEFAULT_THRESHOLD = 0.6;
export const DEFAULT_THRESHOLDS: CategoryThresholds = Object.freeze(
  Object.fromEntries(CATEGORIES.map((c) => [c, DEFAULT_THRESHOLD])) as Record<Category, number>,
);
/** Action when neither the upload nor the project names one. */
export const DEFAULT_ACTION: ModerationAction = "hide";

export const thresholdOverridesSchema = z.partialRecord(z.enum(CATEGORIES), z.number().min(0).max(1));
export type ThresholdOverrides = z.infer<typeof thresholdOverridesSchema>;

/** Full thresholds: the defaults with a project's overrides applied (overrides validated). */
export function resolveThresholds(overrides: ThresholdOverrides | null | undefined): CategoryThresholds {
  const parsed = thresholdOverridesSchema.parse(overrides ?? {});
  const resolved = { ...DEFAULT_THRESHOLDS };
  for (const c of CATEGORIES) {
    const value = parsed[c];
    if (value !== undefined) resolved[c] = value;
  }
  return Object.freeze(resolved);
}

export interface DecideOptions {
  /** Project overrides of the default thresholds. */
  thresholds?: ThresholdOverrides | null;
  /** Action named by the upload; null/undefined → `defaultAction`. */
  action?: ModerationAction | null;
  /** The project's default action; null/undefined → DEFAULT_ACTION. */
  defaultAction?: ModerationAction | null;
}

export interface Decision {
  /** Some category crossed its threshold. */
  flagged: boolean;
  /** The flagged parent categories, in CATEGORIES order (the `flagged-categories` fact). */
  flaggedCategories: Category[];
  status: "approved" | "rejected";
  /** The action applied; null when nothing was flagged. */
  moderationAction: ModerationAction | null;
  /** `purge`: stored content must be removed (the asset record and report remain). */
  removeContent: boolean;
  /** The asset.flagged event to emit, or null (not flagged, or action `ignore`). */
  flagEvent: { notify: boolean; moderationAction: Exclude<ModerationAction, "ignore">; flaggedCategories: Category[] } | null;
  /** Categories not evaluated because a provider was unavailable (never flag, but the report is incomplete). */
  unavailableCategories: Category[];
}

export const UNANALYSABLE_ACTIONS = ["reject", "error", "approve"] as const;
export type UnanalysableAction = (typeof UNANALYSABLE_ACTIONS)[number];

/** A decision after failing closed: `error` is possible, and says what was not analysed. */
export interface FinalDecision extends Omit<Decision, "status"> {
  status: "approved" | "rejected" | "error";
  /** Set when the asset was not fully analysed and the project's unanalysable action applied. */
  notAnalysed: { action: UnanalysableAction; summary: string } | null;
}

/**
 * Fail closed: an asset is approved only when everything that applies to its content was judged.
 * When something was not (`unanalysed` non-empty) and the judged part did not already reject it,
 * the project's unanalysable action decides:
 *   reject  (default) → rejected, content kept, for a reviewer to approve or reject;
 *   error   → status error (retryable), an asset.failed event;
 *   approve → approved as judged (an explicit opt-out; the report still lists what was skipped).
 * A rejection for flagged content stands as it is.
 */
export function failClosed(decision: Decision, unanalysed: readonly { part: string; reason: string }[], action: UnanalysableAction): FinalDecision {
  if (unanalysed.length === 0 || decision.status === "rejected" || action === "approve") {
    return { ...decision, notAnalysed: unanalysed.length > 0 && decision.status !== "rejected" ? { action, summary: summarise(unanalysed) } : null };
  }
  const notAnalysed = { action, summary: summarise(unanalysed) };
  return { ...decision, status: action === "reject" ? "rejected" : "error", removeContent: false, notAnalysed };
}

function summarise(unanalysed: readonly { part: string; reason: string }[]): string {
  const text = unanalysed.map((u) => `${u.part} (${u.reason})`).join("; ");
  return text.length > 900 ? `${text.slice(0, 900)}…` : text;
}

export function decide(report: Pick<Report, "categories" | "media">, options: DecideOptions = {}): Decision {
  const thresholds = resolveThresholds(options.thresholds);
  const flaggedCategories = flaggedCategoriesOf(report, thresholds);
  const unavailableCategories = CATEGORIES.filter((c) => {
    const entry = report.categories[c];
    return entry.status === "not-evaluated" && entry.reason === "unavailable";
  });
  const base = { flaggedCategories, unavailableCategories };
  if (flaggedCategories.length === 0) {
    return { ...base, flagged: false, status: "approved", moderationAction: null, removeContent: false, flagEvent: null };
  }
  const action = options.action ?? options.defaultAction ?? DEFAULT_ACTION;
  if (action === "ignore") {
    return { ...base, flagged: true, status: "approved", moderationAction: "ignore", removeContent: false, flagEvent: null };
  }
  return {
    ...base,
    flagged: true,
    status: action === "alert" ? "approved" : "rejected",
    moderationAction: action,
    removeContent: action === "purge",
    flagEvent: { notify: true, moderationAction: action, flaggedCategories },
  };
}
