import sharp from "sharp";
import { errorMessage } from "@/lib/core/errors";
import { decodeHeic, isHeicFile, isHeicMimeType, isHevcHeif, type DecodedHeic } from "@/lib/media/heic";
import type { RawPixels } from "@/lib/media/preview";

/**
 * The image the classifiers, the perceptual hashes and OCR judge. A large image is judged, not
 * skipped: above JUDGE_DIRECT_PIXELS it is decoded once, sequentially (libvips streams the rows, so
 * memory stays flat; JPEG and WebP shrink while loading), and downscaled to fit JUDGE_MAX_SIDE; the
 * hashes and scores then do not depend on the upload's resolution. Measured on 2 cores: a 20000²
 * PNG in ~0.9 s, a 1-bit 60000² PNG in ~4.8 s, the process's peak RSS ~185 MB for either.
 * Only time grows with pixels, so DECODE_MAX_PIXELS bounds it (the decompression-bomb guard).
 * An image that cannot be decoded at all is reported `undecodable`, and the decision fails closed.
 * HEIC/HEIF (HEVC), which sharp cannot decode, is decoded by decodeHeic (a worker thread, ~1 s per
 * 12 MP) and judged as a PNG of its pixels, downscaled like any other large image.
 */
export const JUDGE_DIRECT_PIXELS = 4096 * 4096;
export const JUDGE_MAX_SIDE = 4096;
export const DECODE_MAX_PIXELS = 65_536 * 65_536;

export type ImageInput =
  | {
      ok: true;
      data: Buffer;
      mimeType: string;
      downscaledFrom: { width: number; height: number } | null;
      /** The original format when the judged bytes were decoded from it (HEIC). */
      convertedFrom?: "heic";
      /** The judged image's pixels, when they were decoded here anyway (a preview reuses them). */
      pixels?: RawPixels;
    }
  | { ok: false; reason: string };

/** `known`: the dimensions read from the header at upload (the asset's imageData), when there are any. */
export async function imageForJudgement(bytes: Buffer, mimeType: string, known: { width: number; height: number } | null): Promise<ImageInput> {
  if (await needsHeicDecoder(bytes, mimeType)) return heicForJudgement(bytes);
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

async function needsHeicDecoder(bytes: Buffer, mimeType: string): Promise<boolean> {
  if (isHeicFile(bytes)) return true;
  if (!isHeicMimeType(mimeType)) return false;
  // Declared HEIC/HEIF, but sharp may read it as what it decodes itself: AVIF by another name, a mislabelled PNG.
  const meta = await sharp(bytes).metadata().catch(() => null);
  return meta === null || isHevcHeif(meta);
}

async function heicForJudgement(bytes: Buffer): Promise<ImageInput> {
  let decoded: DecodedHeic;
  try {
    decoded = await decodeHeic(bytes);
  } catch (error) {
    return { ok: false, reason: `the HEIC image could not be decoded: ${errorMessage(error)}` };
  }
  const { width, height, channels } = decoded;
  const large = Math.max(width, height) > JUDGE_MAX_SIDE;
  try {
    let pixels: RawPixels = decoded;
    if (large) {
      const { data, info } = await sharp(decoded.data, { raw: { width, height, channels } })
        .resize(JUDGE_MAX_SIDE, JUDGE_MAX_SIDE, { fit: "inside" })
        .raw()
        .toBuffer({ resolveWithObject: true });
      pixels = { data, width: info.width, height: info.height, channels: info.channels as RawPixels["channels"] };
    }
    // Fast PNG: the classifiers and hashes take encoded images, and lossless keeps the hashes exact.
    const raw = { width: pixels.width, height: pixels.height, channels: pixels.channels };
    const png = await sharp(pixels.data, { raw }).png({ compressionLevel: 1 }).toBuffer();
    return { ok: true, data: png, mimeType: "image/png", downscaledFrom: large ? { width, height } : null, convertedFrom: "heic", pixels };
  } catch (error) {
    return { ok: false, reason: `the decoded HEIC image could not be encoded: ${errorMessage(error)}` };
  }
}
