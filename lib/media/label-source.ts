import { fromRaster, rasterOf, RASTER_SIDE } from "@/lib/media/judged-raster";

/**
 * The copy of an image kept for labelling after the decision: a JPEG of its judged raster (upright,
 * on white, shorter side RASTER_SIDE), the decode the image model and the hashes share, so the copy
 * costs the analysis an encode and no decode of its own. (A separate 512 px decode cost 6.5 ms per
 * 1 MP JPEG, and images 15 % of their throughput.)
 */
export const LABEL_SOURCE_SIDE = RASTER_SIDE;
const QUALITY = 90;

export async function labelSourceJpeg(image: Buffer): Promise<Buffer> {
  return fromRaster(await rasterOf(image)).jpeg({ quality: QUALITY }).toBuffer();
}
