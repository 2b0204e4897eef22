import { labelSourceKey, labelSourcePrefix } from "@/lib/assets/storage-keys";
import { collectStream } from "@/lib/core/streams";
import { storage } from "@/lib/storage";

/** The downscaled copies the labelling step reads (storage-keys.ts, labelSourceKey). */
export interface LabelTarget {
  projectId: string;
  assetId: string;
  generation: number;
}

const MAX_SOURCE_BYTES = 8 * 1024 * 1024;

/** Stores the copies in order; returns how many were stored. */
export async function storeLabelSources(target: LabelTarget, images: readonly Buffer[]): Promise<number> {
  await Promise.all(
    images.map((jpeg, index) => storage().put(labelSourceKey(target.projectId, target.assetId, target.generation, index), jpeg, { contentType: "image/jpeg" })),
  );
  return images.length;
}

/** The copy `index`, or null when it is gone (labelled already, or the asset's content was deleted). */
export async function readLabelSource(target: LabelTarget, index: number): Promise<Buffer | null> {
  const object = await storage().get(labelSourceKey(target.projectId, target.assetId, target.generation, index));
  if (!object) return null;
  return collectStream(object.body, MAX_SOURCE_BYTES, () => new Error("label source larger than expected"));
}

/** Deletes the copies of one processing generation (a newer one may be writing its own). */
export async function deleteLabelSources(target: LabelTarget): Promise<void> {
  await storage().deletePrefix(`${labelSourcePrefix(target.projectId, target.assetId)}${target.generation}-`);
}
