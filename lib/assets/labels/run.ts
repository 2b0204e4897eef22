import type { FrameLabels, ImageLabels } from "@/lib/assets/field-schemas";
import { config } from "@/lib/core/config";
import { waitForQuiet } from "@/lib/core/foreground";
import { labelImage } from "@/lib/media/vision";
import { aggregateFrames } from "./aggregate";
import type { LabelAssetData } from "./request";
import { deleteLabelSources, readLabelSource } from "./sources";
import { saveImageLabels } from "./store";

/**
 * The labelling step (inngest/functions/label-asset.ts), after an image's or a video's decision:
 * reads the downscaled copies the analysis stored, labels each (objects, colours, faces), saves the
 * asset's labels and search terms and deletes the copies. It first lets moderation in this process
 * finish what it is doing (the detector takes a core for ~0.2 s per image): decisions come first.
 */
export type LabelOutcome = { labelled: true; objects: number } | { labelled: false; reason: string };

/** What settles a request: the asset is gone or reprocessed, or its copies are gone (labelled before). */
export async function labelAsset(data: LabelAssetData): Promise<LabelOutcome> {
  await waitForQuiet({ quietMs: 500, maxWaitMs: config().pipeline.imageLabelsYieldMs });
  const frames: FrameLabels[] = [];
  let model = "";
  for (let index = 0; index < data.sources; index++) {
    const source = await readLabelSource(data, index);
    if (!source) return { labelled: false, reason: `copy ${index} is gone (labelled already, or the content was deleted)` };
    const seen = await labelImage(source);
    model = seen.model;
    frames.push({ objects: seen.objects, colours: seen.colours, faces: seen.faces });
  }
  const labels: ImageLabels = { ...aggregateFrames(frames), model, labeledAt: Date.now() };
  const saved = await saveImageLabels(data, labels, data.frames ? frames : null);
  await deleteLabelSources(data);
  return saved ? { labelled: true, objects: labels.objects.length } : { labelled: false, reason: "the asset is gone or was reprocessed" };
}
