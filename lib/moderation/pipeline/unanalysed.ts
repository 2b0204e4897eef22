import type { Category } from "../report";
import type { Part } from "./parts";

/**
 * Something of an asset that was not judged, and why: a part whose classifiers could not run
 * (every provider for a category failed: `unavailable`), content no analyser reads, or a check
 * (hash lists) that could not run. The decision fails closed on any of these (policy.ts), and the
 * report's `notes.unanalysed` lists them.
 */
export interface Unanalysed {
  /** The part: "text", "image", "frame@1.50s", "transcript", "content", … */
  part: string;
  /** The categories left unjudged (absent for a check that is not a category, like hash lists). */
  categories?: Category[];
  /** A check other than the classifiers. */
  check?: "hash-lists";
  reason: string;
}

/** A long video must not turn the report into a list of every frame. */
const MAX_LISTED = 20;

export function unanalysedParts(parts: readonly Part[]): Unanalysed[] {
  const found: Unanalysed[] = [];
  for (const part of parts) {
    const categories = (Object.entries(part.judgements) as [Category, (typeof part.judgements)[Category]][])
      .filter(([, j]) => j?.status === "not-evaluated" && j.reason === "unavailable")
      .map(([c]) => c);
    if (categories.length > 0) found.push({ part: part.label, categories, reason: reasonOf(part) });
  }
  if (found.length <= MAX_LISTED) return found;
  return [...found.slice(0, MAX_LISTED), { part: `${found.length - MAX_LISTED} more parts`, reason: "not listed" }];
}

function reasonOf(part: Part): string {
  const failed = part.combined?.providers.flatMap((p) => (p.outcome.status === "unavailable" ? [`${p.id}: ${p.outcome.error.message}`] : []));
  if (failed && failed.length > 0) return failed.join("; ");
  const notes = part.notes as { unavailable?: { reason?: string; error?: string } } | null;
  return notes?.unavailable?.reason ?? notes?.unavailable?.error ?? "a classifier could not run";
}
