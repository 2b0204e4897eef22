import type { FrameLabels, ImageLabels } from "@/lib/assets/field-schemas";
import { config } from "@/lib/core/config";
import { waitForQuiet } from "@/lib/core/foreground";
import { labelImage, OBJECT_MIN_SCORE } from "@/lib/media/vision";
import { aggregateFrames, searchTerms } from "./aggregate";
import type { LabelAssetData } from "./request";
import { deleteLabelSources, readLabelSource } from "./sources";
import { saveImageLabels } from "./store";

// The labelling step (inngest/functions/label-asset.ts), after an image's or a video's decision:
// reads the downscaled copies the analysis stored, labels each (objects, colours, faces), saves the
// asset's labels and search terms and deletes the copies.

/**
 * Search also reads detections below the labels' threshold (OBJECT_MIN_SCORE): scored by their
 * confidence, they rank below sure ones, and a query for a cake finds the picture the detector was
 * unsure about rather than nothing. The Asset's `imageLabels` shows only the sure ones.
 */
export const SEARCH_MIN_OBJECT_SCORE = 0.15;

/** How long moderation must have been idle before an image is labelled (a backlog's batches follow each other within it). */
const QUIET_MS = 1500;

export type LabelOutcome = { labelled: true; objects: number } | { labelled: false; reason: string };

export interface BatchLabelOutcome {
  labelled: number;
  skipped: number;
  /** Assets whose labelling failed twice: left unlabelled, their copies deleted. */
  failed: string[];
}

/**
 * A batch of requests, one asset after another; one that fails is tried once more, then given up.
 * Before each asset it lets moderation in this process finish what it is doing (the detector takes
 * a core for ~0.15 s per image): decisions come first, for at most SIEVE_IMAGE_LABELS_YIELD_MS per batch.
 */
export async function labelAssets(requests: readonly LabelAssetData[]): Promise<BatchLabelOutcome> {
  const outcome: BatchLabelOutcome = { labelled: 0, skipped: 0, failed: [] };
  const deadline = Date.now() + config().pipeline.imageLabelsYieldMs;
  for (const request of requests) {
    await waitForQuiet({ quietMs: QUIET_MS, maxWaitMs: Math.max(0, deadline - Date.now()) });
    const result = await labelAsset(request).catch(() => labelAsset(request)).catch(async (error: unknown) => {
      console.warn(`[sieve] labelling asset ${request.assetId} failed: ${(error as Error).message}`);
      await deleteLabelSources(request).catch(() => undefined);
      return null;
    });
    if (!result) outcome.failed.push(request.assetId);
    else if (result.labelled) outcome.labelled++;
    else outcome.skipped++;
  }
  return outcome;
}

/** What settles a request: the asset is gone or reprocessed, or its copies are gone (labelled before). */
export async function labelAsset(data: LabelAssetData): Promise<LabelOutcome> {
  const frames: FrameLabels[] = [];
  let model = "";
  for (let index = 0; index < data.sources; index++) {
    const source = await readLabelSource(data, index);
    if (!source) {
      await deleteLabelSources(data);
      return { labelled: false, reason: `copy ${index} is gone (labelled already, or the content was deleted)` };
    }
    const seen = await labelImage(source, { minObjectScore: SEARCH_MIN_OBJECT_SCORE });
    model = seen.model;
    frames.push({ objects: seen.objects, colours: seen.colours, faces: seen.faces });
  }
  const all = aggregateFrames(frames);
  const sure = (frame: FrameLabels): FrameLabels => ({ ...frame, objects: frame.objects.filter((o) => o.confidence >= OBJECT_MIN_SCORE) });
  const labels: ImageLabels = { ...sure(all), model, labeledAt: Date.now() };
  const saved = await saveImageLabels(data, { labels, frames: data.frames ? frames.map(sure) : null, terms: searchTerms(all) });
  await deleteLabelSources(data);
  return saved ? { labelled: true, objects: labels.objects.length } : { labelled: false, reason: "the asset is gone or was reprocessed" };
}
