import sharp from "sharp";
import { errorMessage } from "@/lib/core/errors";

/**
 * The image the classifiers, the perceptual hashes and OCR judge. A large image is judged, not
 * skipped: above JUDGE_DIRECT_PIXELS it is decoded once, sequentially (libvips streams the rows, so
 * memory stays flat; JPEG and WebP shrink while loading), and downscaled to fit JUDGE_MAX_SIDE; the
 * hashes and scores then do not depend on the upload's resolution. Measured on 2 cores: a 20000²
 * PNG in ~0.9 s, a 1-bit 60000² PNG in ~4.8 s, the process's peak RSS ~185 MB for either.
 * Only time grows with pixels, so DECODE_MAX_PIXELS bounds it (the decompression-bomb guard).
 * An image that cannot be decoded at all is reported `undecodable`, and the decision fails closed.
 */
export const JUDGE_DIRECT_PIXELS = 4096 * 4096;
export const JUDGE_MAX_SIDE = 4096;
export const DECODE_MAX_PIXELS = 65_536 * 65_536;

export type ImageInput =
  | { ok: true; data: Buffer; mimeType: string; downscaledFrom: { width: number; height: number } | null }
  | { ok: false; reason: string };

/** `known`: the dimensions read from the header at upload (the asset's imageData), when there are any. */
export async function imageForJudgement(bytes: Buffer, mimeType: string, known: { width: number; height: number } | null): Promise<ImageInput> {
  if (known && known.width * known.height <= JUDGE_DIRECT_PIXELS) return { ok: true, data: bytes, mimeType, downscaledFrom: null };
  let width: number;
  let height: number;
  try {
    // Header only: no pixel is decoded here.
    const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
    if (!meta.width || !meta.height) return { ok: false, reason: "the image has no dimensions" };
    width = meta.width;
    height = meta.pageHeight ?? meta.height;
  } catch (error) {
    return { ok: false, reason: `the image could not be read: ${errorMessage(error)}` };
  }
  if (width * height <= JUDGE_DIRECT_PIXELS) return { ok: true, data: bytes, mimeType, downscaledFrom: null };
  if (width * height > DECODE_MAX_PIXELS) {
    return { ok: false, reason: `the image has ${width}×${height} pixels, more than the ${DECODE_MAX_PIXELS} this service decodes` };
  }
  try {
    const data = await sharp(bytes, { limitInputPixels: DECODE_MAX_PIXELS, sequentialRead: true, failOn: "error" })
      .rotate() // EXIF orientation, as the hashes expect
      .resize(JUDGE_MAX_SIDE, JUDGE_MAX_SIDE, { fit: "inside", withoutEnlargement: true })
      .png({ compressionLevel: 1 })
      .toBuffer();
    return { ok: true, data, mimeType: "image/png", downscaledFrom: { width, height } };
  } catch (error) {
    return { ok: false, reason: `the image could not be decoded: ${errorMessage(error)}` };
  }
}
