import { fromRaster, RASTER_MAX_INPUT_PIXELS, rasterOf } from "@/lib/media/judged-raster";

/**
 * Perceptual image hashes for matching known images against hash lists (lists.ts).
 *
 * Hashes are 64-bit values written as 16 lowercase hex characters. Bit 63 (the first hex digit's
 * high bit) is the first coefficient/pixel comparison, so two hashes can be compared with
 * hammingDistance() here or in SQL (`bit_count(('x'||a)::bit(64) # ('x'||b)::bit(64))`).
 *
 * Both hashes honour EXIF orientation (rotate()), flatten transparency on white, and work on
 * luminance only, so a resize, re-encode (JPEG/WebP) or slight brightness change of the same
 * picture stays within a few bits, while mirrored images are allowed to differ.
 *
 * Known weakness (inherent to median-threshold pHash): a picture that is exactly mirror-symmetric
 * (e.g. synthetic graphics centred on an axis) has half of its low-frequency coefficients at ~0, so
 * those bits follow noise and a re-encode can move 15-25 bits. Natural photos are not affected in
 * practice; dHash() can serve as a second opinion for such inputs.
 */

/** Largest input decoded for hashing (about 100 megapixels); larger images are refused by sharp. */
export const HASH_MAX_INPUT_PIXELS = RASTER_MAX_INPUT_PIXELS;

const PHASH_SIZE = 32;
const PHASH_LOW = 8;
export const HASH_HEX_RE = /^[0-9a-f]{16}$/;

/** Validates and normalises (lowercases) a 16-hex hash; throws on anything else. */
export function normalizeHash(hash: string): string {
  const h = hash.trim().toLowerCase();
  if (!HASH_HEX_RE.test(h)) throw new Error(`Invalid hash ${JSON.stringify(hash)}: expected 16 hex characters`);
  return h;
}

/**
 * Grayscale pixels of the image resized (ignoring aspect ratio) to width×height, one byte each,
 * from its judged raster (decoded once, shared with the image model: lib/media/judged-raster.ts).
 */
async function grayPixels(image: Buffer, width: number, height: number): Promise<Uint8Array> {
  const { data, info } = await fromRaster(await rasterOf(image))
    .grayscale()
    .resize(width, height, { fit: "fill", kernel: "lanczos3" })
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.width !== width || info.height !== height) throw new Error("Unexpected hash raster size");
  const channels = info.channels;
  if (channels === 1) return new Uint8Array(data.buffer, data.byteOffset, width * height);
  const out = new Uint8Array(width * height);
  for (let i = 0; i < out.length; i++) out[i] = data[i * channels]!;
  return out;
}

/** cos((2x + 1) u π / 2N) for u < PHASH_LOW, x < N: the only DCT rows the hash needs. */
const COS: Float64Array = (() => {
  const table = new Float64Array(PHASH_LOW * PHASH_SIZE);
  for (let u = 0; u < PHASH_LOW; u++) {
    for (let x = 0; x < PHASH_SIZE; x++) table[u * PHASH_SIZE + x] = Math.cos(((2 * x + 1) * u * Math.PI) / (2 * PHASH_SIZE));
  }
  return table;
})();

/** bits[0] becomes the most significant bit of the 16-hex result. */
function bitsToHex(bits: boolean[]): string {
  let value = 0n;
  for (const bit of bits) value = (value << 1n) | (bit ? 1n : 0n);
  return value.toString(16).padStart(16, "0");
}

/**
 * 64-bit DCT perceptual hash: 32×32 luminance, 2-D DCT-II, the top-left 8×8 low frequencies;
 * each AC coefficient becomes 1 if above the median of the 63 AC coefficients. The DC term
 * (overall brightness) is excluded from the median and its bit is always 0, so a uniform
 * brightness change does not move the hash.
 */
export async function perceptualHash(image: Buffer): Promise<string> {
  const px = await grayPixels(image, PHASH_SIZE, PHASH_SIZE);
  const N = PHASH_SIZE;
  // Separable DCT, only the 8 lowest frequencies in each direction:
  // rows first (tmp[y][u] for u < 8), then columns (coef[v][u] for v < 8).
  const tmp = new Float64Array(N * PHASH_LOW);
  for (let y = 0; y < N; y++) {
    for (let u = 0; u < PHASH_LOW; u++) {
      let sum = 0;
      for (let x = 0; x < N; x++) sum += px[y * N + x]! * COS[u * N + x]!;
      tmp[y * PHASH_LOW + u] = sum;
    }
  }
  const coef = new Float64Array(PHASH_LOW * PHASH_LOW);
  for (let v = 0; v < PHASH_LOW; v++) {
    for (let u = 0; u < PHASH_LOW; u++) {
      let sum = 0;
      for (let y = 0; y < N; y++) sum += tmp[y * PHASH_LOW + u]! * COS[v * N + y]!;
      coef[v * PHASH_LOW + u] = sum;
    }
  }
  // Normalisation factors do not change the comparison with the median (all AC terms share them).
  const ac = Array.from(coef.subarray(1)).sort((a, b) => a - b);
  const median = ac[(ac.length - 1) / 2]!; // 63 values: the 32nd
  const bits = Array.from(coef, (c, i) => i !== 0 && c > median);
  return bitsToHex(bits);
}

/** 64-bit difference hash: 9×8 luminance, 1 where a pixel is brighter than its right neighbour. */
export async function dHash(image: Buffer): Promise<string> {
  const px = await grayPixels(image, 9, 8);
  const bits: boolean[] = [];
  for (let y = 0; y < 8; y++) {
    for (let x = 0; x < 8; x++) bits.push(px[y * 9 + x]! > px[y * 9 + x + 1]!);
  }
  return bitsToHex(bits);
}

/** Number of differing bits between two 16-hex hashes (0..64). */
export function hammingDistance(a: string, b: string): number {
  let x = BigInt(`0x${normalizeHash(a)}`) ^ BigInt(`0x${normalizeHash(b)}`);
  let count = 0;
  while (x !== 0n) {
    x &= x - 1n;
    count++;
  }
  return count;
}

/** The pHash and dHash of an image: the pipeline matches both against hash lists. */
export async function imageHashPair(image: Buffer): Promise<[string, string]> {
  return Promise.all([perceptualHash(image), dHash(image)]);
}
