import { storeLabelSources, type LabelTarget } from "@/lib/assets/labels/sources";
import type { EarlyJudge, EarlyWork } from "@/lib/assets/processing/early-judgement";
import { FIRST_GENERATION } from "@/lib/assets/processing/request";
import { config } from "@/lib/core/config";
import { errorMessage } from "@/lib/core/errors";
import { asForeground } from "@/lib/core/foreground";
import { labelSourceJpeg } from "@/lib/media/label-source";
import { checkHashLists, type HashCheck } from "./hash-hold";
import { imageForJudgement, type ImageInput } from "./image-input";
import { classifyPart, type Part } from "./parts";

/**
 * Judging an image's bytes: the image as judged (decoded or downscaled when needed), then the image
 * model (its worker) and the hash lists (sharp on libuv's pool, then one query) at once. It depends
 * on the bytes, their format and header facts only, so a `queue=false` upload can start it before its
 * asset is stored (early judgement, lib/assets/processing/early-judgement.ts).
 */
export interface JudgedImage {
  image: Part;
  hashes: HashCheck;
}

export interface ImageWork {
  input: Promise<ImageInput>;
  /** Null when the image could not be decoded (input says why). */
  judged: Promise<JudgedImage | null>;
  /** The labelling copies, when an early judgement stored them (for the generation they name). */
  labelCopies?: Promise<LabelCopies & { generation: number }>;
}

/** Downscaled copies stored for the labelling step after the decision (images, video frames). */
export interface LabelSources {
  count: number;
  frames: boolean;
}

/** The copies stored, or why none could be (labels are a search aid: a note, not a moderation failure). */
export interface LabelCopies {
  sources: LabelSources | null;
  error: string | null;
}

/** Stores the copies the labelling step reads (when image labels are on); never rejects. */
export async function storeLabelCopies(target: LabelTarget, images: () => Promise<Buffer[]>, frames: boolean): Promise<LabelCopies> {
  if (!config().pipeline.imageLabels) return { sources: null, error: null };
  try {
    const count = await storeLabelSources(target, await images());
    return { sources: count > 0 ? { count, frames } : null, error: null };
  } catch (error) {
    return { sources: null, error: errorMessage(error) };
  }
}

/** `known`: the header facts read at upload (the asset's imageData), when there are any. */
export function judgeImageBytes(bytes: Buffer, mimeType: string, known: { width: number; height: number } | null): ImageWork {
  const input = imageForJudgement(bytes, mimeType, known);
  const judged = input.then(async (ready): Promise<JudgedImage | null> => {
    if (!ready.ok) return null;
    const [image, hashes] = await Promise.all([classifyPart("image", { kind: "image", data: ready.data, mimeType: ready.mimeType }), checkHashLists(ready.data)]);
    return { image, hashes };
  });
  return handled({ input, judged });
}

/** A caller that stops at a failed input never awaits `judged`: its rejection is not an unhandled one. */
function handled(work: ImageWork): ImageWork {
  work.judged.catch(() => undefined);
  work.labelCopies?.catch(() => undefined);
  return work;
}

interface SettledWork {
  input: ImageInput;
  judged: JudgedImage | null;
  labelCopies: LabelCopies & { generation: number };
}

/**
 * The judge offered for early judgement: the same work, as one promise (foreground work, like the
 * analysis), and the labelling copy of the first generation stored meanwhile.
 */
export const earlyImageJudge: EarlyJudge = (upload) =>
  asForeground(async (): Promise<SettledWork> => {
    const work = judgeImageBytes(upload.bytes, upload.fileFormat, upload.imageData as { width: number; height: number } | null);
    const input = await work.input;
    const target = { projectId: upload.projectId, assetId: upload.assetId, generation: FIRST_GENERATION };
    const copies = input.ok ? storeLabelCopies(target, async () => [await labelSourceJpeg(input.data)], false) : { sources: null, error: null };
    const [judged, labelCopies] = await Promise.all([work.judged, copies]);
    return { input, judged, labelCopies: { ...labelCopies, generation: FIRST_GENERATION } };
  });

/** An early judgement taken by the run, in the shape of judgeImageBytes's. */
export function imageWorkOf(early: EarlyWork): ImageWork {
  const settled = early as Promise<SettledWork>;
  return handled({ input: settled.then((w) => w.input), judged: settled.then((w) => w.judged), labelCopies: settled.then((w) => w.labelCopies) });
}
