import sharp, { type Sharp } from "sharp";

/**
 * An image decoded once for everything that judges it: its first page's RGB pixels, EXIF-rotated,
 * transparency on white, fitted inside RASTER_SIDE (JPEG and WebP shrink while loading, so a large
 * photo is cheap to decode). The image model's input and both perceptual hashes are resized from
 * it, and the judges of the same bytes (the same Buffer) running at once share the one decode: the
 * pending or finished decode is kept with the Buffer, and goes when the Buffer does.
 */
export const RASTER_SIDE = 256;
/** Largest input decoded (about 100 megapixels); larger images are refused by sharp. */
export const RASTER_MAX_INPUT_PIXELS = 100_000_000;

export interface Raster {
  data: Buffer;
  width: number;
  height: number;
}

const decodes = new WeakMap<Buffer, Promise<Raster>>();

export function rasterOf(image: Buffer): Promise<Raster> {
  let decode = decodes.get(image);
  if (!decode) {
    decode = sharp(image, { limitInputPixels: RASTER_MAX_INPUT_PIXELS })
      .rotate()
      .flatten({ background: { r: 255, g: 255, b: 255 } })
      .resize(RASTER_SIDE, RASTER_SIDE, { fit: "outside", withoutEnlargement: true })
      .toColourspace("srgb")
      .removeAlpha()
      .raw({ depth: "uchar" })
      .toBuffer({ resolveWithObject: true })
      .then(({ data, info }) => {
        if (info.channels !== 3) throw new Error(`unexpected raster with ${info.channels} channels`);
        return { data, width: info.width, height: info.height };
      });
    decodes.set(image, decode);
  }
  return decode;
}

/** A sharp pipeline reading the raster's pixels (to resize them for one judge). */
export function fromRaster(raster: Raster): Sharp {
  return sharp(raster.data, { raw: { width: raster.width, height: raster.height, channels: 3 } });
}
