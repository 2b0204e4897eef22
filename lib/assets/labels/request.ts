import type { LabelTarget } from "./sources";

/** An asset whose labels are due (a row of label_queue, lib/assets/labels/queue.ts). */
export interface LabelAssetData extends LabelTarget {
  /** How many copies were stored: 1 for an image, one per sampled frame for a video. */
  sources: number;
  /** Whether the copies are a video's frames (their labels also go into the report's frame segments). */
  frames: boolean;
}
