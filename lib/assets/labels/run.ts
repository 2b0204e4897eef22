import type { FrameLabels, ImageLabels } from "@/lib/assets/field-schemas";
import { config } from "@/lib/core/config";
import { waitForQuiet } from "@/lib/core/foreground";
import { OBJECT_MIN_SCORE } from "@/lib/media/vision";
import { aggregateFrames, searchTerms } from "./aggregate";
import { removeFromLabelQueue, takeDueLabels } from "./queue";
import { imageLabelProviders, type ImageLabelProvider, type SeenInImage } from "./providers";
import type { LabelAssetData } from "./request";
import { deleteLabelSources, readLabelSource } from "./sources";
import { saveImageLabels } from "./store";

// The labelling step (inngest/functions/label-assets.ts), after an image's or a video's decision:
// takes the due assets from label_queue (queue.ts), reads the downscaled copies the analysis
// stored, labels each (objects, colours, faces), saves the asset's labels and search terms, deletes
// the copies and the queue row.

/**
 * Search also reads detections below the labels' threshold (OBJECT_MIN_SCORE): scored by their
 * confidence, they rank below sure ones, and a query for a cake finds the picture the detector was
 * unsure about rather than nothing. The Asset's `imageLabels` shows only the sure ones.
 */
export const SEARCH_MIN_OBJECT_SCORE = 0.15;

/** How long moderation must have been idle before an image is labelled (a backlog's batches follow each other within it). */
const QUIET_MS = 1500;
/** How long one step waits for quiet before it hands back (the function then starts another step). */
const STEP_WAIT_MS = 30_000;

export type LabelOutcome = { labelled: true; objects: number } | { labelled: false; reason: string };

export interface BatchLabelOutcome {
  /** Assets taken from the queue. */
  taken: number;
  /** Moderation was busy and the next asset is not overdue: it stays queued for the next step. */
  deferred: boolean;
  labelled: number;
  skipped: number;
  /** Assets whose labelling failed twice: left unlabelled, their copies deleted. */
  failed: string[];
}

/**
 * The oldest `limit` queued assets, one after another; one that fails is tried once more, then
 * given up. Each leaves the queue when settled, so a crash repeats only the unsettled ones.
 * Decisions come first: before each asset it waits until moderation in this process has been idle
 * for a moment (the detector takes a core for ~0.15 s per image, and a backlog drained 8 % slower
 * while its images were labelled), for at most STEP_WAIT_MS; when moderation is still busy it
 * defers the rest to the next step, unless the asset was decided SIEVE_IMAGE_LABELS_YIELD_MS ago,
 * the longest labels may wait: a backlog delays labels, and a never-ending one cannot starve them.
 */
export async function labelDueAssets(limit: number, options: { stepWaitMs?: number } = {}): Promise<BatchLabelOutcome> {
  const requests = await takeDueLabels(limit);
  const outcome: BatchLabelOutcome = { taken: requests.length, deferred: false, labelled: 0, skipped: 0, failed: [] };
  const stepDeadline = Date.now() + (options.stepWaitMs ?? STEP_WAIT_MS);
  for (const { queuedAt, ...request } of requests) {
    const overdueAt = queuedAt + config().pipeline.imageLabelsYieldMs;
    const quiet = await waitForQuiet({ quietMs: QUIET_MS, maxWaitMs: Math.max(0, Math.min(stepDeadline, overdueAt) - Date.now()) });
    if (!quiet && Date.now() < overdueAt) {
      outcome.deferred = true;
      break;
    }
    const result = await labelAsset(request).catch(() => labelAsset(request)).catch(async (error: unknown) => {
      console.warn(`[sieve] labelling asset ${request.assetId} failed: ${(error as Error).message}`);
      await deleteLabelSources(request).catch(() => undefined);
      return null;
    });
    if (!result) outcome.failed.push(request.assetId);
    else if (result.labelled) outcome.labelled++;
    else outcome.skipped++;
    await removeFromLabelQueue(request);
  }
  return outcome;
}

/** What settles a request: the asset is gone or reprocessed, or its copies are gone (labelled before). */
export async function labelAsset(data: LabelAssetData): Promise<LabelOutcome> {
  const providers = imageLabelProviders().filter((provider) => !data.frames || provider.framesToo);
  const frames: FrameLabels[] = [];
  const models = new Set<string>();
  let description: string | null = null;
  for (let index = 0; index < data.sources; index++) {
    const source = await readLabelSource(data, index);
    if (!source) {
      await deleteLabelSources(data);
      return { labelled: false, reason: `copy ${index} is gone (labelled already, or the content was deleted)` };
    }
    const seen = await Promise.all(providers.map((provider) => seeWith(provider, source, data.assetId)));
    for (const { labels, description: said, model } of seen.filter((s) => s !== null)) {
      models.add(model);
      if (labels) frames.push(labels);
      if (said) description = said;
    }
  }
  const all = aggregateFrames(frames);
  const sure = (frame: FrameLabels): FrameLabels => ({ ...frame, objects: frame.objects.filter((o) => o.confidence >= OBJECT_MIN_SCORE) });
  const labels: ImageLabels = { ...sure(all), description, model: [...models].join("+"), labeledAt: Date.now() };
  const saved = await saveImageLabels(data, { labels, frames: data.frames ? frames.map(sure) : null, terms: searchTerms(all) });
  await deleteLabelSources(data);
  return saved ? { labelled: true, objects: labels.objects.length } : { labelled: false, reason: "the asset is gone or was reprocessed" };
}

/**
 * What one provider saw. The detector's failure fails the attempt; a describer's leaves the labels
 * without a description (an endpoint that is down must not cost the images their detected labels).
 */
async function seeWith(provider: ImageLabelProvider, image: Buffer, assetId: string): Promise<SeenInImage | null> {
  try {
    return await provider.see(image, { minObjectScore: SEARCH_MIN_OBJECT_SCORE });
  } catch (error) {
    if (provider.id === "detector") throw error;
    console.warn(`[sieve] ${provider.id} failed for asset ${assetId}, labelled without it: ${(error as Error).message}`);
    return null;
  }
}
