import type { Category, Likelihood, NotEvaluatedReason, QualifierKey, SegmentSource } from "@/lib/moderation/report";
import type { AssetTypeName, QueueReason } from "@/lib/portal/types";

/*
 * Copies of the small constant lists in lib/moderation/report.ts: that module imports zod and the
 * report builders, which have no place in the browser bundle. The `satisfies` clauses make the
 * compiler fail if the server's lists gain a value these labels do not know.
 */
export const CATEGORY_LABELS = {
  sexual: "Sexual",
  violence: "Violence",
  "self-harm": "Self-harm",
  harassment: "Harassment",
  hate: "Hate",
  "criminal-activity": "Criminal activity",
} as const satisfies Record<Category, string>;

export const CATEGORIES = Object.keys(CATEGORY_LABELS) as Category[];

export const LIKELIHOOD_LABELS = {
  "very-unlikely": "Very unlikely",
  unlikely: "Unlikely",
  possible: "Possible",
  likely: "Likely",
  "very-likely": "Very likely",
} as const satisfies Record<Likelihood, string>;

export const LIKELIHOODS = Object.keys(LIKELIHOOD_LABELS) as Likelihood[];

/** Bar colours by likelihood; always shown next to the likelihood's name, never alone. */
export const LIKELIHOOD_BAR = {
  "very-unlikely": "bg-slate-500",
  unlikely: "bg-sky-700",
  possible: "bg-amber-600",
  likely: "bg-orange-700",
  "very-likely": "bg-red-700",
} as const satisfies Record<Likelihood, string>;

export const NOT_EVALUATED_LABELS = {
  "not-supported": "Not supported for this kind of content",
  unavailable: "A classifier was unavailable",
} as const satisfies Record<NotEvaluatedReason, string>;

export const SEGMENT_SOURCE_LABELS = {
  frame: "Video frame",
  speech: "Speech",
  "frame-text": "Text in frame",
  clip: "Clip",
} as const satisfies Record<SegmentSource, string>;

export const REASON_LABELS = {
  rejected: "Rejected",
  error: "Error",
  alerted: "Alerted",
} as const satisfies Record<QueueReason, string>;

export const ASSET_TYPE_LABELS = {
  image: "Image",
  video: "Video",
  audio: "Audio",
  "plaintext-document": "Text",
  "multimedia-document": "Document",
  website: "Website",
  file: "File",
} as const satisfies Record<AssetTypeName, string>;

export function assetTypeLabel(type: string): string {
  return ASSET_TYPE_LABELS[type as AssetTypeName] ?? type;
}

export function qualifierLabel(key: QualifierKey): string {
  const words = key.replace(/-/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function formatScore(score: number): string {
  return score.toFixed(2);
}

/** 75 → "1:15"; segment bounds are seconds with fractions. */
export function formatSeconds(seconds: number): string {
  const whole = Math.floor(seconds);
  const minutes = Math.floor(whole / 60);
  const rest = whole % 60;
  const tenths = Math.floor((seconds - whole) * 10);
  return `${minutes}:${String(rest).padStart(2, "0")}${tenths ? `.${tenths}` : ""}`;
}
