import { CATEGORIES, type CategoryJudgement, type CategoryJudgements, type QualifierKey } from "../report";

/**
 * Merges judgements of several parts of one asset (an image and its OCR text, a document's text
 * and images, a video's frames): the highest score wins per category and qualifier; a category
 * any part could not judge because a provider was unavailable makes an evaluated result `partial`.
 */
export function mergeJudgements(parts: readonly CategoryJudgements[]): CategoryJudgements {
  const merged: CategoryJudgements = {};
  for (const category of CATEGORIES) {
    let best: Extract<CategoryJudgement, { score: number }> | undefined;
    let unavailable = false;
    let partial = false;
    for (const part of parts) {
      const j = part[category];
      if (!j) continue;
      if (j.status === "not-evaluated") {
        if (j.reason === "unavailable") unavailable = true;
        continue;
      }
      if (j.status === "partial") partial = true;
      const qualifiers: Partial<Record<QualifierKey, number>> = { ...(best?.qualifiers ?? {}) };
      for (const [key, score] of Object.entries(j.qualifiers ?? {}) as [QualifierKey, number][]) {
        qualifiers[key] = Math.max(qualifiers[key] ?? 0, score);
      }
      best = { status: "evaluated", score: Math.max(best?.score ?? 0, j.score), qualifiers };
    }
    if (best) merged[category] = { ...best, status: partial || unavailable ? "partial" : "evaluated" };
    else if (unavailable) merged[category] = { status: "not-evaluated", reason: "unavailable" };
  }
  return merged;
}
