import { setImmediate as yieldToOthers } from "node:timers/promises";
import type { ProcessAssetData } from "@/lib/assets/processing/request";
import { asForeground } from "@/lib/core/foreground";
import { analyzeAsset } from "./analyze";
import { finishProcessing } from "./decision";

/**
 * Processes a batch of queued text and images in one step (process-asset-batch): per asset the
 * same analysis and decision as a run of its own, without a run's fixed costs (the run and step
 * rows, the calls of our serve endpoint). Each asset stands alone: one that throws is returned for a
 * run of its own (with its own retries and failure handling) and the others go on. Decided assets
 * (a retried batch, a re-sent event) are skipped before any analysis (analyzeAsset returns null).
 * Several assets are in flight at once (`inFlight`): most of a text's time is waiting for the
 * database (its reads, the decision's commit), which the others' work fills; an image's is the
 * image model (SIEVE_IMAGE_MODEL_WORKERS threads), so more images than keep those busy would only
 * take CPU from them. Between
 * assets the event loop is yielded, so `queue=false` requests are not held up by a batch.
 */

export interface BatchOutcome {
  decided: number;
  /** Assets that threw: each gets a run of its own. */
  failed: ProcessAssetData[];
}

export function processAssetBatch(assets: readonly ProcessAssetData[], inFlight: number): Promise<BatchOutcome> {
  // The whole batch is foreground work, its decisions and the yields between assets included.
  return asForeground(() => processBatch(assets, inFlight));
}

async function processBatch(assets: readonly ProcessAssetData[], inFlight: number): Promise<BatchOutcome> {
  const outcome: BatchOutcome = { decided: 0, failed: [] };
  let next = 0;
  const worker = async () => {
    while (next < assets.length) {
      const asset = assets[next++]!;
      try {
        await finishProcessing(asset, await analyzeAsset(asset));
        outcome.decided++;
      } catch (error) {
        console.warn(`[sieve] asset ${asset.assetId} failed in a batch, giving it a run of its own: ${(error as Error).message}`);
        outcome.failed.push(asset);
      }
      await yieldToOthers();
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, assets.length) }, worker));
  // In the batch's order, whatever order they finished in.
  outcome.failed.sort((a, b) => assets.indexOf(a) - assets.indexOf(b));
  return outcome;
}
