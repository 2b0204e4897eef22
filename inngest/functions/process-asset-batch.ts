import { inngest } from "@/inngest/client";
import { PROCESS_ASSET_EVENT, singleProcessingRequest, type ProcessAssetData } from "@/lib/assets/processing/request";
import { processAssetBatch } from "@/lib/moderation/pipeline/batch";

/**
 * Queued text and images (`bulk` lane), up to 50 per run: a burst of uploads is decided in batches
 * instead of one run per asset, whose fixed costs (run rows, claims, calls of our serve endpoint)
 * were most of the time per asset. One step processes the batch (lib/moderation/pipeline/batch.ts);
 * a retry skips what is decided. Assets the step could not process, or all of them when every
 * attempt of the step failed, are sent on to process-asset as runs of their own, whose retries and
 * onFailure (asset `error`, `asset.failed`) apply to each.
 */
export const BULK_BATCH_SIZE = 50;
/** Assets of a batch in flight at once, by kind (lib/moderation/pipeline/batch.ts says why). */
const IN_FLIGHT = { text: 8, image: 4 } as const;

export const processAssetBatchFunction = inngest.createFunction(
  {
    id: "process-asset-batch",
    name: "Process queued assets in batches",
    retries: 2,
    // One batch of each kind at a time: texts and images do not wait for each other.
    concurrency: [{ limit: 1, key: "event.data.bulkKind" }],
    batchEvents: { maxSize: BULK_BATCH_SIZE, timeout: "1s", key: "event.data.bulkKind" },
    triggers: [{ event: PROCESS_ASSET_EVENT, if: "event.data.lane == 'bulk'" }],
  },
  async ({ events, step }) => {
    const assets = events.map((event) => event.data as ProcessAssetData);
    const inFlight = IN_FLIGHT[assets[0]?.bulkKind ?? "text"];
    let failed: ProcessAssetData[];
    let decided = 0;
    try {
      ({ decided, failed } = await step.run("classify-and-decide", () => processAssetBatch(assets, inFlight)));
    } catch {
      failed = assets;
    }
    if (failed.length > 0) await step.sendEvent("process-singly", failed.map(singleProcessingRequest));
    return { assets: assets.length, decided, sentSingly: failed.length };
  },
);
