import { inngest } from "@/inngest/client";
import { LABEL_ASSET_EVENT, type LabelAssetData } from "@/lib/assets/labels/request";
import { labelAssets } from "@/lib/assets/labels/run";
import { deleteLabelSources } from "@/lib/assets/labels/sources";

/**
 * Labels images and videos' frames after their decisions (lib/assets/labels/run.ts), in batches:
 * a burst of 1500 images made 1500 runs, whose bookkeeping (run rows, claims, calls of our serve
 * endpoint) cost the decisions 15 % of their throughput while the runs waited for moderation to go
 * quiet. One run at a time: the detector takes a whole core, and moderation needs the others. An
 * asset whose labelling fails twice is left with `imageLabels` null and its copies deleted (labels
 * are a search aid, never part of the decision); a step that fails outright is retried, and after
 * its last retry every copy of the batch is deleted.
 */
export const LABEL_BATCH_SIZE = 20;

export const labelAssetFunction = inngest.createFunction(
  {
    id: "label-asset",
    name: "Label images",
    retries: 2,
    concurrency: [{ limit: 1 }],
    batchEvents: { maxSize: LABEL_BATCH_SIZE, timeout: "2s" },
    triggers: [{ event: LABEL_ASSET_EVENT }],
  },
  async ({ events, step }) => {
    const requests = events.map((event) => event.data as LabelAssetData);
    try {
      return await step.run("label", () => labelAssets(requests));
    } catch (error) {
      await step.run("drop-copies", () => Promise.all(requests.map((r) => deleteLabelSources(r))));
      throw error;
    }
  },
);
