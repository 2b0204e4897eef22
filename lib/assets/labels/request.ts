import type { LabelTarget } from "./sources";

/** The job that asks for an asset's labels after its decision (inngest/functions/label-asset.ts). */
export const LABEL_ASSET_EVENT = "sieve/asset.label-requested";

export interface LabelAssetData extends LabelTarget {
  /** How many copies were stored: 1 for an image, one per sampled frame for a video. */
  sources: number;
  /** Whether the copies are a video's frames (their labels also go into the report's frame segments). */
  frames: boolean;
}
