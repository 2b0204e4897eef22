import { inngest } from "@/inngest/client";
import { BATCH_REQUESTED_EVENT, batchSize, finishBatch, runBatchItem } from "@/lib/assets/batch/batch";

/** Applies a batch operation asset by asset; each asset is one memoized step (applied once). */
export const runAssetBatch = inngest.createFunction(
  { id: "run-asset-batch", name: "Run asset batch", retries: 3, triggers: [{ event: BATCH_REQUESTED_EVENT }] },
  async ({ event, step }) => {
    const batchId = (event.data as { batchId: string }).batchId;
    const size = await step.run("count-items", () => batchSize(batchId));
    const outcomes = [];
    for (let index = 0; index < size; index++) {
      outcomes.push(await step.run(`item-${index}`, () => runBatchItem(batchId, index)));
    }
    if (size > 0) await step.run("finish", () => finishBatch(batchId));
    return { batchId, succeeded: outcomes.filter((o) => o.status === "succeeded").length, failed: outcomes.filter((o) => o.status === "failed").length };
  },
);
