import { COCO_LABELS } from "./coco-labels";

/**
 * What the models' raw rows become: per-class non-maximum suppression, then labels with a count and
 * the best score (objects), or a count (faces). Pure, so the thresholds are testable without a model.
 */

export interface ObjectLabel {
  /** A COCO class in lower case ("person", "car", "dog", …: coco-labels.ts). */
  label: string;
  /** The highest score among its detections, 0..1. */
  confidence: number;
  /** Detections of this label at or above the threshold, after suppression of overlapping boxes. */
  count: number;
}

/**
 * Object detections at or above this score count. CenterNet's scores are low in absolute terms (a
 * clear cat 0.5–0.6, people in a crowd 0.2–0.35), but below 0.3 false labels became as common as true
 * ones on the test photos (remote controls on a shirt pattern, a clock in a painting), so 0.3 rather
 * than @vladmandic/human's 0.2. See README.md, "Thresholds".
 */
export const OBJECT_MIN_SCORE = 0.3;
/** Boxes of one label overlapping more than this (intersection over union) are one object (human's 0.4). */
export const OBJECT_IOU_THRESHOLD = 0.4;
/**
 * Faces at or above this score count. Of ~540 test pictures, the 27 whose best face scored ≥ 0.71
 * all showed real faces; the best non-face scored 0.70 (rendered dinosaurs), then 0.67; tight
 * crops and small faces at 0.30–0.69 are missed. README.md, "Thresholds".
 */
export const FACE_MIN_SCORE = 0.7;
export const FACE_IOU_THRESHOLD = 0.3;
/** Rows below this never leave the worker (the lowest threshold a caller may ask for). */
export const DETECTION_FLOOR = 0.1;

export type Box = readonly [x1: number, y1: number, x2: number, y2: number];

export interface Scored {
  box: Box;
  score: number;
}

export function intersectionOverUnion(a: Box, b: Box): number {
  const w = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  const area = (box: Box) => Math.max(0, box[2] - box[0]) * Math.max(0, box[3] - box[1]);
  const union = area(a) + area(b) - inter;
  return union > 0 ? inter / union : 0;
}

/** Greedy non-maximum suppression: the best first, dropping any box overlapping a kept one by more than `iou`. */
export function suppress<T extends Scored>(items: readonly T[], iou: number): T[] {
  const kept: T[] = [];
  for (const item of [...items].sort((a, b) => b.score - a.score)) {
    if (kept.every((k) => intersectionOverUnion(k.box, item.box) <= iou)) kept.push(item);
  }
  return kept;
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

/** CenterNet rows (x1, y1, x2, y2, score, class index; flat) → labels, most confident first. */
export function summariseObjects(rows: ArrayLike<number>, minScore = OBJECT_MIN_SCORE, iou = OBJECT_IOU_THRESHOLD): ObjectLabel[] {
  const byLabel = new Map<string, Scored[]>();
  for (let i = 0; i + 6 <= rows.length; i += 6) {
    const score = rows[i + 4]!;
    const label = COCO_LABELS[rows[i + 5]!];
    if (!label || !(score >= minScore)) continue;
    const list = byLabel.get(label) ?? [];
    list.push({ box: [rows[i]!, rows[i + 1]!, rows[i + 2]!, rows[i + 3]!], score });
    byLabel.set(label, list);
  }
  const labels: ObjectLabel[] = [];
  for (const [label, found] of byLabel) {
    const kept = suppress(found, iou);
    labels.push({ label, confidence: round4(kept[0]!.score), count: kept.length });
  }
  return labels.sort((a, b) => b.confidence - a.confidence || b.count - a.count || a.label.localeCompare(b.label));
}

/** Face rows (x1, y1, x2, y2, score; flat) → the number of faces. */
export function countFaces(rows: ArrayLike<number>, minScore = FACE_MIN_SCORE, iou = FACE_IOU_THRESHOLD): number {
  const found: Scored[] = [];
  for (let i = 0; i + 5 <= rows.length; i += 5) {
    const score = rows[i + 4]!;
    if (score >= minScore) found.push({ box: [rows[i]!, rows[i + 1]!, rows[i + 2]!, rows[i + 3]!], score });
  }
  return suppress(found, iou).length;
}
