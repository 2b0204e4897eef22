import { ProviderError } from "../providers/types";
import { NSFW_CLASSES, NSFW_PROVIDER_ID, type NsfwClass, type NsfwProbabilities } from "./nsfw-model";

/** From the model's class probabilities to our sexual score, its qualifiers and search labels. */

/**
 * From the five class probabilities (softmax, summing to 1) to our scores: each score is
 * Σ P(class) × weight, where the weight is our estimate of how often an image of that class has
 * the property. The classes (nsfw_model training data): Drawing = safe drawings/anime,
 * Hentai = explicit drawings, Neutral = safe photos, Porn = explicit photos, Sexy = suggestive
 * but not explicit (lingerie, swimwear, partial nudity).
 * - sexual: Porn and Hentai are explicit sexual content (1); Sexy counts half (0.5), so an image
 *   the model is sure is merely suggestive lands at 0.5 ("possible", below the default 0.6 flag
 *   threshold) while any real share of Porn/Hentai pushes it over.
 * - nudity: explicit classes almost always show nudity (0.9); suggestive images sometimes (0.35).
 * - sexual-activity: the model cannot tell a sex act from explicit posed nudity, both are "Porn"/
 *   "Hentai", so those classes give at most 0.5 ("possible"); suggestive images give 0.
 * Drawing and Neutral weigh 0 everywhere. The weights are priors from the class definitions, not a
 * calibration on labelled data (none is available offline). Weights ≤ 1 and probabilities summing
 * to 1 keep every score in 0..1 (clamped against rounding).
 */
export const NSFW_SCORE_MAPPING = {
  sexual: { Drawing: 0, Hentai: 1, Neutral: 0, Porn: 1, Sexy: 0.5 },
  nudity: { Drawing: 0, Hentai: 0.9, Neutral: 0, Porn: 0.9, Sexy: 0.35 },
  "sexual-activity": { Drawing: 0, Hentai: 0.5, Neutral: 0, Porn: 0.5, Sexy: 0 },
} as const satisfies Record<"sexual" | "nudity" | "sexual-activity", Record<NsfwClass, number>>;

/** A class at or above this probability becomes a search label (so at most two labels). */
export const NSFW_LABEL_MIN_PROBABILITY = 0.4;

export interface NsfwScores {
  score: number;
  qualifiers: { nudity: number; "sexual-activity": number };
}

function weighted(p: NsfwProbabilities, weights: Record<NsfwClass, number>): number {
  let sum = 0;
  for (const c of NSFW_CLASSES) sum += p[c] * weights[c];
  return Math.min(1, Math.max(0, sum));
}

/** The sexual score and its qualifiers for one image's class probabilities (NSFW_SCORE_MAPPING). */
export function nsfwScores(p: NsfwProbabilities): NsfwScores {
  return {
    score: weighted(p, NSFW_SCORE_MAPPING.sexual),
    qualifiers: { nudity: weighted(p, NSFW_SCORE_MAPPING.nudity), "sexual-activity": weighted(p, NSFW_SCORE_MAPPING["sexual-activity"]) },
  };
}

/**
 * Search keywords from a result's `details`: the lower-cased names of the classes with probability
 * ≥ NSFW_LABEL_MIN_PROBABILITY, most likely first ("drawing", "neutral", "sexy", "porn", "hentai").
 * Nothing for details that are not an nsfwjs result.
 */
export function imageLabelsFrom(details: unknown): string[] {
  if (typeof details !== "object" || details === null) return [];
  const classes = (details as { classes?: unknown }).classes;
  if (typeof classes !== "object" || classes === null) return [];
  const entries: [string, number][] = [];
  for (const c of NSFW_CLASSES) {
    const p = (classes as Record<string, unknown>)[c];
    if (typeof p === "number" && Number.isFinite(p) && p >= NSFW_LABEL_MIN_PROBABILITY) entries.push([c.toLowerCase(), p]);
  }
  return entries.sort((a, b) => b[1] - a[1]).map(([name]) => name);
}

/** The worker's raw output for one frame as probabilities; anything else is malformed. */
export function probabilitiesOf(raw: Record<string, number> | undefined): NsfwProbabilities {
  const p = {} as NsfwProbabilities;
  for (const c of NSFW_CLASSES) {
    const value = raw?.[c];
    if (typeof value !== "number" || !Number.isFinite(value) || value < -1e-6 || value > 1 + 1e-6) {
      throw new ProviderError(NSFW_PROVIDER_ID, "malformed", `model output for ${c} is not a probability: ${String(value)}`);
    }
    p[c] = Math.min(1, Math.max(0, value));
  }
  return p;
}
