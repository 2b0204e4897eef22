import sharp, { type Metadata, type Sharp } from "sharp";
import { errorMessage } from "@/lib/core/errors";
import { isOcrError, OcrError } from "./ocr-errors";

/** Preparing an image for Tesseract: orientation, background, grayscale, scale; blank images skip OCR. */

/** Refused before decoding: ~100 megapixels (e.g. 10000 x 10000). */
export const MAX_INPUT_PIXELS = 100_000_000;
/** Small images are upscaled towards this many pixels (at most MAX_UPSCALE times). */
const TARGET_PIXELS = 1_000_000;
const MAX_UPSCALE = 4;
/** Large images are downscaled to at most this long side and this many pixels. */
const MAX_SIDE = 4000;
const MAX_PIXELS = 12_000_000;
/** A grey range (max - min) at or below this is treated as a blank image: no OCR at all. */
const BLANK_RANGE = 12;

export interface PreparedImage {
  /** Grayscale PNG handed to Tesseract; absent when the image is blank. */
  png?: Buffer;
  width: number;
  height: number;
  /** Scale applied to the auto-oriented input (>1 upscaled, <1 downscaled). */
  scale: number;
  blank: boolean;
}

/**
 * Auto-orients (EXIF), flattens transparency onto a background that contrasts with the visible
 * pixels (white, or black when they are mostly light, e.g. white captions on a transparent
 * sticker), converts to grayscale, upscales small images (Tesseract's LSTM misses text below about
 * 8 px) and caps huge ones. Measured on 36 rendered test images (6-60 px text, coloured, JPEG q40,
 * captions on a noisy photo, EXIF-rotated, transparent): mean word recall 0.72 on the raw bytes vs
 * 0.93 preprocessed (100 vs 178 ms per image); 6-7 px text 0 -> 0.5-0.9, EXIF-rotated 0 -> 1,
 * white text on transparency 0.8-0.9 -> 1 (flattening onto plain white gives 0).
 */
export async function preprocessForOcr(image: Uint8Array): Promise<PreparedImage> {
  const input = Buffer.isBuffer(image) ? image : Buffer.from(image.buffer, image.byteOffset, image.byteLength);
  if (input.length === 0) throw new OcrError("invalid-image", "The image is empty.");
  const open = () => sharp(input, { failOn: "error", limitInputPixels: MAX_INPUT_PIXELS });

  let meta: Metadata;
  try {
    meta = await sharp(input, { failOn: "error", limitInputPixels: false }).metadata();
  } catch (error) {
    throw new OcrError("invalid-image", `The image could not be decoded (${errorMessage(error)}).`, { cause: error });
  }
  const width = meta.autoOrient?.width ?? meta.width;
  const height = meta.autoOrient?.height ?? meta.height;
  if (!width || !height) throw new OcrError("invalid-image", "The image has no size.");
  if (width * height > MAX_INPUT_PIXELS) {
    throw new OcrError("image-too-large", `The image has ${width * height} pixels; the limit is ${MAX_INPUT_PIXELS}.`);
  }

  const scale = chooseScale(width, height);
  const outWidth = Math.max(1, Math.round(width * scale));
  const outHeight = Math.max(1, Math.round(height * scale));
  try {
    const background = meta.hasAlpha ? await contrastingBackground(open) : WHITE;
    let pipeline = open().autoOrient().flatten({ background }).grayscale();
    if (scale !== 1) pipeline = pipeline.resize(outWidth, outHeight, { fit: "fill", kernel: "lanczos3" });
    const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
    const channels = info.channels;
    if (isBlank(data, channels)) return { width: info.width, height: info.height, scale, blank: true };
    const png = await sharp(data, { raw: { width: info.width, height: info.height, channels } })
      .png({ compressionLevel: 1 })
      .toBuffer();
    return { png, width: info.width, height: info.height, scale, blank: false };
  } catch (error) {
    if (isOcrError(error)) throw error;
    throw new OcrError("invalid-image", `The image could not be decoded (${errorMessage(error)}).`, { cause: error });
  }
}

const WHITE = { r: 255, g: 255, b: 255 };
const BLACK = { r: 0, g: 0, b: 0 };

function chooseScale(width: number, height: number): number {
  const pixels = width * height;
  let scale = pixels < TARGET_PIXELS ? Math.min(MAX_UPSCALE, Math.sqrt(TARGET_PIXELS / pixels)) : 1;
  scale = Math.min(scale, MAX_SIDE / Math.max(width, height), Math.sqrt(MAX_PIXELS / pixels));
  // Do not bother resampling for a few percent.
  return Math.abs(scale - 1) < 0.05 ? 1 : scale;
}

/** White unless the opaque pixels are mostly light (alpha-weighted mean luminance > 60 %). */
async function contrastingBackground(open: () => Sharp): Promise<typeof WHITE> {
  const { data, info } = await open()
    .resize(256, 256, { fit: "inside", withoutEnlargement: true })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const step = info.channels; // RGBA
  let weight = 0;
  let sum = 0;
  for (let i = 0; i + 3 < data.length; i += step) {
    const a = data[i + 3]!;
    if (a === 0) continue;
    weight += a;
    sum += a * (0.2126 * data[i]! + 0.7152 * data[i + 1]! + 0.0722 * data[i + 2]!);
  }
  return weight > 0 && sum / weight > 153 ? BLACK : WHITE;
}

function isBlank(data: Buffer, channels: number): boolean {
  let min = 255;
  let max = 0;
  for (let i = 0; i < data.length; i += channels) {
    const v = data[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
    if (max - min > BLANK_RANGE) return false;
  }
  return true;
}
