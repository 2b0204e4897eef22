/**
 * Word error rate (WER) of a speech transcript against the sentence that was spoken:
 * (substitutions + deletions + insertions) / words in the reference, from the minimum word-level edit
 * distance. Both sides are normalised first so that only recognition errors count, not spelling:
 * lower case, apostrophes dropped ("o'clock" = "oclock", as pocketsphinx's dictionary spells some
 * words either way), every other non-letter/digit a word break.
 */

export interface WordErrors {
  substitutions: number;
  deletions: number;
  insertions: number;
  /** substitutions + deletions + insertions. */
  errors: number;
  referenceWords: number;
  /** errors / referenceWords; may exceed 1 when the recogniser inserts words. An empty reference gives 0 for an empty hypothesis, else 1. */
  rate: number;
}

export function normaliseWords(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/['’]/g, "")
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

export function wordErrors(reference: string, hypothesis: string): WordErrors {
  const ref = normaliseWords(reference);
  const hyp = normaliseWords(hypothesis);
  // cost[i][j]: edits turning ref[0..i) into hyp[0..j); kept whole for the backtrace that splits the kinds.
  const cost: number[][] = Array.from({ length: ref.length + 1 }, (_, i) => Array.from({ length: hyp.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= ref.length; i++) {
    for (let j = 1; j <= hyp.length; j++) {
      const same = ref[i - 1] === hyp[j - 1];
      cost[i]![j] = Math.min(cost[i - 1]![j - 1]! + (same ? 0 : 1), cost[i - 1]![j]! + 1, cost[i]![j - 1]! + 1);
    }
  }
  let substitutions = 0;
  let deletions = 0;
  let insertions = 0;
  let i = ref.length;
  let j = hyp.length;
  while (i > 0 || j > 0) {
    const here = cost[i]![j]!;
    if (i > 0 && j > 0 && here === cost[i - 1]![j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1)) {
      if (ref[i - 1] !== hyp[j - 1]) substitutions++;
      i--;
      j--;
    } else if (i > 0 && here === cost[i - 1]![j]! + 1) {
      deletions++;
      i--;
    } else {
      insertions++;
      j--;
    }
  }
  const errors = substitutions + deletions + insertions;
  const rate = ref.length === 0 ? (errors === 0 ? 0 : 1) : errors / ref.length;
  return { substitutions, deletions, insertions, errors, referenceWords: ref.length, rate };
}

/** Corpus WER: all errors over all reference words (not the mean of per-sentence rates, which overweights short sentences). */
export function corpusWordErrorRate(results: readonly WordErrors[]): number {
  const words = results.reduce((sum, r) => sum + r.referenceWords, 0);
  const errors = results.reduce((sum, r) => sum + r.errors, 0);
  return words === 0 ? 0 : errors / words;
}
