import sharp, { type Sharp } from "sharp";
import { fromRaster, RASTER_MAX_INPUT_PIXELS, rasterOf } from "@/lib/media/judged-raster";
import { NSFW_INPUT_SIZE as SIZE } from "./nsfw-model";

/** Decoding an image (every sampled page of an animated one) into the model's input rasters. */

export interface DecodedFrames {
  /** One SIZE×SIZE×3 RGB raster per sampled page, each its own ArrayBuffer (transferred to the worker). */
  frames: ArrayBuffer[];
  totalFrames: number;
  /** The page index of each frame. */
  indices: number[];
}

/** Up to `max` page indices out of `total`, evenly spaced, first and last included. */
export function sampleFrameIndices(total: number, max: number): number[] {
  const n = Math.max(1, Math.floor(total));
  const m = Math.max(1, Math.floor(max));
  if (n <= m) return Array.from({ length: n }, (_, i) => i);
  if (m === 1) return [0];
  return [...new Set(Array.from({ length: m }, (_, i) => Math.round((i * (n - 1)) / (m - 1))))];
}

export async function decodeFrames(data: Uint8Array, maxFrames: number, maxPixels: number): Promise<DecodedFrames> {
  const input = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const meta = await sharp(input, { limitInputPixels: maxPixels }).metadata();
  const totalFrames = Math.max(1, meta.pages ?? 1);
  // One page within both limits: from the judged raster, decoded once for the hashes too
  // (lib/media/judged-raster.ts). Anything else is decoded here, where sharp enforces maxPixels.
  if (totalFrames === 1 && (meta.width ?? 0) * (meta.height ?? 0) <= Math.min(maxPixels, RASTER_MAX_INPUT_PIXELS)) {
    return { frames: [await modelInput(fromRaster(await rasterOf(input)))], totalFrames, indices: [0] };
  }
  const indices = sampleFrameIndices(totalFrames, maxFrames);
  const frames = await Promise.all(
    indices.map((page) =>
      modelInput(
        sharp(input, { limitInputPixels: maxPixels, page })
          .rotate() // EXIF orientation
          .flatten({ background: { r: 255, g: 255, b: 255 } }),
      ),
    ),
  );
  return { frames, totalFrames, indices };
}

/** The model's SIZE×SIZE RGB input from a decoding pipeline, as a fresh ArrayBuffer (transferred to the worker). */
async function modelInput(image: Sharp): Promise<ArrayBuffer> {
  const { data: raw, info } = await image
    .resize(SIZE, SIZE, { fit: "fill" })
    .toColourspace("srgb")
    .removeAlpha()
    .raw({ depth: "uchar" })
    .toBuffer({ resolveWithObject: true });
  if (info.width !== SIZE || info.height !== SIZE || info.channels !== 3 || raw.byteLength !== SIZE * SIZE * 3) {
    throw new Error(`unexpected raster ${info.width}×${info.height}×${info.channels}`);
  }
  return new Uint8Array(raw).buffer;
}
