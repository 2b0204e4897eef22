import sharp, { type Metadata, type Sharp } from "sharp";
import { ApiError, errorMessage, isApiError } from "@/lib/core/errors";
import { decodeHeic, isHevcHeif } from "@/lib/media/heic";
import type { ImageFormat, ImageTransformStep, TransformedImage } from "@/lib/cdn/types";

/**
 * The sharp pipeline behind lenses and `imageTransform[...]` selectors.
 *
 * - Limits first: the header (`metadata()`, well under 1 ms) is read and an input over
 *   MAX_INPUT_PIXELS (width × height × decoded frames) is refused before a pixel is decoded, so a
 *   decompression bomb costs nothing; sharp's `limitInputPixels` is set as well.
 * - Steps apply in order. sharp keeps one resize per pipeline, so between two resizing steps the
 *   image is materialized to raw pixels. The encoding comes from the last step that names a format
 *   and the last that names a quality.
 * - Resize: width and/or height with `fit` (sharp's meaning); with both and no fit, `cover`; `inside`
 *   never enlarges (fit within the box: a smaller image keeps its size). A resize
 *   may not produce more than MAX_OUTPUT_SIDE per side or MAX_OUTPUT_PIXELS per frame (or, for an
 *   animation, more than the input pixel limit over all frames): 400 asset/invalid-transform-options.
 *   A transform without width or height keeps the input's size.
 * - Orientation from EXIF is applied; all metadata is stripped, pixels converted to sRGB using the
 *   embedded ICC profile (or CMYK's).
 * - Format: the requested one; otherwise the input's when it is jpeg, png, webp, avif or gif, else
 *   webp (svg, tiff, heic, ...). Quality defaults: webp 80, avif 50, jpeg 80; png and gif ignore it.
 *   AVIF is encoded at effort 2: the default takes seconds per image (docs: cdn-performance notes).
 *   JPEG has no alpha: transparent areas become white.
 * - Animated GIF/WebP to webp or gif keeps the animation (the first MAX_ANIMATION_FRAMES frames, with
 *   their delays and loop count); to jpeg, png or avif it is the first frame.
 * - SVG is rasterized at sharp's default density. HEIC (HEVC), which sharp's libvips cannot decode,
 *   is decoded by lib/media/heic.ts in a worker thread and continues as raw pixels.
 * - Any failure to decode or encode is 500 asset/transform-failed with sharp's reason.
 */

export const MAX_INPUT_PIXELS = 100_000_000;
export const MAX_OUTPUT_SIDE = 8192;
export const MAX_OUTPUT_PIXELS = 40_000_000;
export const MAX_ANIMATION_FRAMES = 200;
const AVIF_EFFORT = 2;
const DEFAULT_QUALITY: Partial<Record<ImageFormat, number>> = { webp: 80, avif: 50, jpeg: 80 };
const ANIMATED_OUTPUTS: ReadonlySet<ImageFormat> = new Set(["webp", "gif"]);
const ANIMATED_INPUTS: ReadonlySet<string> = new Set(["gif", "webp"]);
const KEPT_INPUT_FORMATS: ReadonlySet<string> = new Set(["jpeg", "png", "webp", "gif"]);

const CONTENT_TYPES: Record<ImageFormat, string> = {
  webp: "image/webp",
  avif: "image/avif",
  jpeg: "image/jpeg",
  png: "image/png",
  gif: "image/gif",
};

export function contentTypeOf(format: ImageFormat): string {
  return CONTENT_TYPES[format];
}

export interface TransformOptions {
  /** Width × height × decoded frames above which the input is refused. Default MAX_INPUT_PIXELS. */
  maxInputPixels?: number;
}

interface Size {
  width: number;
  height: number;
}

/** Decodable pixels and what the pipeline needs to know about them before decoding. */
interface Source {
  open: () => Sharp;
  /** Upright size of one frame. */
  size: Size;
  frames: number;
  delay?: number[];
  loop?: number;
}

export async function transformImage(input: Buffer, steps: ImageTransformStep[], opts: TransformOptions = {}): Promise<TransformedImage> {
  const maxInputPixels = opts.maxInputPixels ?? MAX_INPUT_PIXELS;
  const metadata = await readMetadata(input);
  const format = outputFormat(steps, metadata);
  const animated = (metadata.pages ?? 1) > 1 && ANIMATED_INPUTS.has(metadata.format) && ANIMATED_OUTPUTS.has(format);
  const frames = animated ? Math.min(metadata.pages ?? 1, MAX_ANIMATION_FRAMES) : 1;
  refuseLargeInput(metadata, frames, maxInputPixels);

  try {
    // sharp reads HEIF headers, but its libvips has no HEVC decoder: those pixels are decoded elsewhere.
    const source: Source = isHevcHeif(metadata)
      ? await heicSource(input, maxInputPixels)
      : {
          open: () => sharp(input, { limitInputPixels: maxInputPixels, ...(animated ? { pages: frames } : {}) }).autoOrient(),
          size: metadata.autoOrient,
          frames,
          delay: animated ? metadata.delay?.slice(0, frames) : undefined,
          loop: animated ? metadata.loop : undefined,
        };
    return await run(source, steps, format, maxInputPixels);
  } catch (error) {
    throw asApiError(error);
  }
}

async function readMetadata(input: Buffer): Promise<Metadata> {
  try {
    // No pixel limit here: the header alone is read, and refuseLargeInput says why in its own words.
    return await sharp(input, { limitInputPixels: false }).metadata();
  } catch (error) {
    throw asApiError(error);
  }
}

/** The last format the steps ask for, else the input's own when browsers show it, else webp. */
function outputFormat(steps: ImageTransformStep[], metadata: Metadata): ImageFormat {
  const requested = steps.findLast((step) => step.format !== undefined)?.format;
  if (requested) return requested;
  if (KEPT_INPUT_FORMATS.has(metadata.format)) return metadata.format as ImageFormat;
  if (metadata.format === "heif" && !isHevcHeif(metadata)) return "avif";
  return "webp";
}

function refuseLargeInput(metadata: Metadata, frames: number, maxInputPixels: number): void {
  const frameHeight = metadata.pageHeight ?? metadata.height;
  const pixels = metadata.width * frameHeight * frames;
  if (pixels <= maxInputPixels) return;
  const framesText = frames > 1 ? ` × ${frames} frames` : "";
  throw new ApiError(
    "asset/transform-failed",
    `The image is ${metadata.width}×${frameHeight}${framesText} = ${pixels} pixels, over the limit of ${maxInputPixels}; it is not decoded.`,
  );
}

async function heicSource(input: Buffer, maxInputPixels: number): Promise<Source> {
  const decoded = await decodeHeic(input, { maxPixels: maxInputPixels });
  const raw = { width: decoded.width, height: decoded.height, channels: decoded.channels };
  // libheif applies the HEIF rotation and mirroring itself: there is no orientation left to apply.
  return { open: () => sharp(decoded.data, { raw, limitInputPixels: maxInputPixels }), size: decoded, frames: 1 };
}

async function run(source: Source, steps: ImageTransformStep[], format: ImageFormat, maxInputPixels: number): Promise<TransformedImage> {
  const resizes = steps.filter((step) => step.width !== undefined || step.height !== undefined);
  // Every resize is checked against the output limits before any decoding.
  resizes.reduce((size, step) => {
    const next = resizedSize(size, step);
    refuseLargeOutput(next, source.frames, maxInputPixels);
    return next;
  }, source.size);

  let image = source.open();
  for (const [index, step] of resizes.entries()) {
    // `inside` means "fit within the box": it never enlarges (a 300 px image stays 300 px under a 1600 px lens).
    image = image.resize({ width: step.width, height: step.height, fit: step.fit ?? "cover", withoutEnlargement: step.fit === "inside" });
    if (index < resizes.length - 1) image = await materialize(image, maxInputPixels);
  }
  const quality = steps.findLast((step) => step.quality !== undefined)?.quality ?? DEFAULT_QUALITY[format];
  const { data, info } = await encode(image, format, quality, source).toBuffer({ resolveWithObject: true });
  return { data, contentType: contentTypeOf(format), format, width: info.width, height: info.pageHeight ?? info.height };
}

/**
 * The size sharp's resize gives a frame of `size`, to ±1 pixel (shrink-on-load rounds differently).
 * With one side given sharp scales the other, except with fit fill, which keeps it; inside never enlarges.
 */
export function resizedSize(size: Size, step: ImageTransformStep): Size {
  const { width, height } = step;
  const fit = step.fit ?? "cover";
  const scaled = (factor: number): Size => ({
    width: Math.max(1, Math.round(size.width * factor)),
    height: Math.max(1, Math.round(size.height * factor)),
  });
  if (fit === "inside") {
    return scaled(Math.min(width === undefined ? 1 : width / size.width, height === undefined ? 1 : height / size.height, 1));
  }
  if (width !== undefined && height !== undefined) {
    if (fit === "outside") return scaled(Math.max(width / size.width, height / size.height));
    return { width, height };
  }
  if (width !== undefined) return fit === "fill" ? { width, height: size.height } : { ...scaled(width / size.width), width };
  if (height !== undefined) return fit === "fill" ? { width: size.width, height } : { ...scaled(height / size.height), height };
  return size;
}

function refuseLargeOutput(size: Size, frames: number, maxInputPixels: number): void {
  const pixels = size.width * size.height;
  if (size.width <= MAX_OUTPUT_SIDE && size.height <= MAX_OUTPUT_SIDE && pixels <= MAX_OUTPUT_PIXELS && pixels * frames <= maxInputPixels) return;
  const framesText = frames > 1 ? ` × ${frames} frames` : "";
  throw new ApiError(
    "asset/invalid-transform-options",
    `Invalid transform options: the result would be ${size.width}×${size.height}${framesText}; at most ${MAX_OUTPUT_SIDE} pixels per side and ` +
      `${MAX_OUTPUT_PIXELS} pixels per frame (${maxInputPixels} over all frames of an animation) are produced.`,
  );
}

/** Runs the pipeline so far into raw pixels, the input of the next resize. */
async function materialize(image: Sharp, maxInputPixels: number): Promise<Sharp> {
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  const frames = info.pages ?? 1;
  const raw = { width: info.width, height: info.height, channels: info.channels };
  // Raw frames are resized one by one only when sharp is told to read every page (`pages: -1`).
  const animation = frames > 1 ? { raw: { ...raw, pageHeight: info.pageHeight }, pages: -1 } : { raw };
  return sharp(data, { ...animation, limitInputPixels: maxInputPixels });
}

function encode(image: Sharp, format: ImageFormat, quality: number | undefined, source: Source): Sharp {
  // Given explicitly: a raw intermediate has lost the input's frame delays and loop count.
  const animation = source.frames > 1 ? { delay: source.delay, loop: source.loop } : {};
  switch (format) {
    case "webp":
      return image.webp({ quality, ...animation });
    case "gif":
      return image.gif(animation);
    case "avif":
      return image.avif({ quality, effort: AVIF_EFFORT });
    case "jpeg":
      return image.flatten({ background: "#ffffff" }).jpeg({ quality });
    case "png":
      return image.png();
  }
}

function asApiError(error: unknown): ApiError {
  if (isApiError(error)) return error;
  return new ApiError("asset/transform-failed", `The image could not be transformed: ${errorMessage(error)}`, { cause: error });
}
