import { inngest } from "@/inngest/client";
import { LABEL_ASSET_EVENT, type LabelAssetData } from "@/lib/assets/labels/request";
import { labelAsset } from "@/lib/assets/labels/run";
import { deleteLabelSources } from "@/lib/assets/labels/sources";

/**
 * Labels an image or a video's frames after its decision (lib/assets/labels/run.ts). One run at a
 * time: the detector takes a whole core, and moderation needs the others. A request that failed
 * every retry leaves `imageLabels` null and its copies deleted (labels are a search aid, never part
 * of the decision).
 */
export const labelAssetFunction = inngest.createFunction(
  {
    id: "label-asset",
    name: "Label image",
    retries: 2,
    concurrency: [{ limit: 1 }],
    triggers: [{ event: LABEL_ASSET_EVENT }],
    onFailure: async ({ event, step }) => {
      const data = event.data.event.data as LabelAssetData;
      await step.run("drop-copies", () => deleteLabelSources(data));
    },
  },
  async ({ event, step }) => {
    const data = event.data as LabelAssetData;
    return step.run("label", () => labelAsset(data));
  },
);
