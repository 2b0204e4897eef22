import { untilAborted } from "@/lib/core/abort";
import type { z } from "zod";
import type { Category, QualifierKey } from "../report";
import { ProviderError, type ClassifierProvider, type ClassifyOptions, type MediaKind, type ProviderInput, type ProviderResult } from "../providers/types";
import { decodeFrames, type DecodedFrames } from "./nsfw-frames";
import { NSFW_CLASSES, NSFW_PROVIDER_ID, NSFW_PROVIDER_VERSION, type NsfwProbabilities } from "./nsfw-model";
import { nsfwScores, probabilitiesOf, type NsfwScores } from "./nsfw-scores";
import { modelName, nsfwWorkerHost, type NsfwWorkerResult } from "./nsfw-worker-client";
import { errorMessage } from "@/lib/core/errors";

/**
 * Local sexual-content classifier for images and video frames: nsfwjs 4.4.0 with its bundled
 * MobileNetV2 model (224×224 input, five classes), converted to ONNX when it loads and run on
 * onnxruntime's CPU runtime (nsfw-onnx.mjs; the same outputs as nsfwjs on TensorFlow.js, ~8 ms).
 *
 * - Inference runs in worker processes (nsfw-worker.mjs), never on the main event loop: a pool of
 *   up to SIEVE_IMAGE_MODEL_WORKERS, started lazily and unref'd while idle; each is sent one
 *   request at a time; the model loads once per worker on first use (`warmUpNsfw()` preloads it).
 *   A crashed or hung worker is replaced on the next request; the request in flight fails with
 *   code "network".
 * - Decoding happens on the main thread with sharp (asynchronous, on libuv's thread pool): EXIF
 *   orientation applied, transparency flattened on white, converted to 8-bit sRGB, and resized to
 *   224×224 with `fit: "fill"` (stretched, aspect ratio not kept). That is what the model saw in
 *   training (images were resized straight to 224×224) and what nsfwjs does itself; `cover` would
 *   crop away parts of the picture that may be the problematic ones, `contain` would add bars the
 *   model never saw.
 * - Animated or multi-page images (GIF, WebP, TIFF, AVIF sequences): up to `maxFrames` pages,
 *   evenly spaced including the first and last, are classified and the frame with the highest
 *   sexual score is reported (so later frames are not ignored).
 * - `timeoutMs` covers decoding, waiting in the queue and inference (including the first model
 *   load, ~0.5–1 s, unless `warmUpNsfw()` ran). A request aborted or timed out while queued never
 *   reaches the worker.
 *
 * The parts: nsfw-model.ts (identity, classes), nsfw-scores.ts (probabilities to scores and
 * labels), nsfw-frames.ts (decoding), nsfw-worker-client.ts (the worker and its protocol).
 */

export {
  NSFW_CLASSES,
  NSFW_MAPPING_REVISION,
  NSFW_MODEL,
  NSFW_PROVIDER_ID,
  NSFW_PROVIDER_VERSION,
  NSFWJS_VERSION,
  type NsfwClass,
  type NsfwProbabilities,
} from "./nsfw-model";
export { imageLabelsFrom, NSFW_LABEL_MIN_PROBABILITY, NSFW_SCORE_MAPPING, nsfwScores, type NsfwScores } from "./nsfw-scores";
export { sampleFrameIndices } from "./nsfw-frames";
export { __nsfwTestHooks, defaultNsfwWorkerPath, NSFW_WORKER_HANG_MS, shutdownNsfw, warmUpNsfw } from "./nsfw-worker-client";

export interface NsfwProviderOptions {
  /** The worker script; default `<cwd>/lib/moderation/image/nsfw-worker.mjs` (the server runs from the project root). */
  workerPath?: string;
  /** Most frames classified for an animated/multi-page image (default 8). */
  maxFrames?: number;
  /** Largest input decoded, in pixels per frame (default 100 megapixels); larger images are malformed. */
  maxInputPixels?: number;
}

export const NSFW_DEFAULT_MAX_FRAMES = 8;
export const NSFW_MAX_INPUT_PIXELS = 100_000_000;

const IMAGE_CATEGORIES: readonly Category[] = ["sexual"];
const NONE: readonly Category[] = [];

export function createNsfwProvider(options: NsfwProviderOptions = {}): ClassifierProvider {
  const maxFrames = options.maxFrames ?? NSFW_DEFAULT_MAX_FRAMES;
  const maxPixels = options.maxInputPixels ?? NSFW_MAX_INPUT_PIXELS;
  const id = NSFW_PROVIDER_ID;

  function supports(kind: MediaKind): readonly Category[] {
    return kind === "image" || kind === "frame" ? IMAGE_CATEGORIES : NONE;
  }

  async function classify(input: ProviderInput, opts: ClassifyOptions): Promise<ProviderResult> {
    if (input.kind === "text") throw new ProviderError(id, "malformed", "nsfwjs classifies images and video frames, not text");
    const timeout = AbortSignal.timeout(opts.timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    const stopped = () =>
      opts.signal?.aborted
        ? new ProviderError(id, "aborted", "classification aborted", { cause: opts.signal.reason })
        : new ProviderError(id, "timeout", `no result within ${opts.timeoutMs} ms`);
    if (signal.aborted) throw stopped();
    if (!(input.data instanceof Uint8Array) || input.data.byteLength === 0) throw new ProviderError(id, "malformed", "empty image data");

    let decoded: DecodedFrames;
    try {
      decoded = await untilAborted(decodeFrames(input.data, maxFrames, maxPixels), signal, () => new Cancelled("aborted"));
    } catch (error) {
      if (error instanceof Cancelled || signal.aborted) throw stopped();
      throw new ProviderError(id, "malformed", `cannot decode the image (${input.mimeType}): ${errorMessage(error)}`, { cause: error });
    }

    let reply: NsfwWorkerResult;
    try {
      reply = await nsfwWorkerHost(options.workerPath).request({ type: "classify", frames: decoded.frames }, { signal, transfer: decoded.frames });
    } catch (error) {
      if (signal.aborted) throw stopped(); // the host rejects with the signal's reason
      throw new ProviderError(id, "network", `inference failed: ${errorMessage(error)}`, { cause: error });
    }
    if (!reply.frames || reply.frames.length !== decoded.frames.length) {
      throw new ProviderError(id, "malformed", `worker returned ${reply.frames?.length ?? 0} results for ${decoded.frames.length} frames`);
    }

    // The frame with the highest sexual score speaks for the image.
    let worst = -1;
    let best: { p: NsfwProbabilities; s: NsfwScores } | undefined;
    reply.frames.forEach((raw, i) => {
      const p = probabilitiesOf(raw);
      const s = nsfwScores(p);
      if (!best || s.score > best.s.score) {
        best = { p, s };
        worst = i;
      }
    });
    const { p, s } = best!;
    const details: Record<string, z.core.util.JSONType> = {
      model: modelName(reply.info),
      classes: Object.fromEntries(NSFW_CLASSES.map((c) => [c, round4(p[c])])),
    };
    if (decoded.totalFrames > 1) {
      details.frames = { total: decoded.totalFrames, sampled: decoded.indices.length, reported: decoded.indices[worst] ?? 0 };
    }
    const qualifiers: Partial<Record<QualifierKey, number>> = { ...s.qualifiers };
    return { categories: { sexual: { score: s.score, qualifiers } }, details };
  }

  return { id, version: NSFW_PROVIDER_VERSION, supports, classify };
}

/** The caller's signal fired before the work was done. */
class Cancelled extends Error {}


const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
