import { ApiError } from "@/lib/core/errors";

/**
 * Decoding of inline content text (its UTF-8 bytes: as the JSON reader read large content aside, or
 * encoded from a small string), in place: base64 and percent-encoding only ever shrink, so the
 * output is written over the input and no second copy exists.
 */

const INVALID = -1;
const SKIP = -2;
const PAD = -3;
/** Byte → base64 digit value, or INVALID / SKIP (ASCII white space, as `\s`) / PAD (`=`). */
const BASE64_DIGITS = new Int8Array(256).fill(INVALID);
"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".split("").forEach((c, i) => (BASE64_DIGITS[c.charCodeAt(0)] = i));
BASE64_DIGITS[0x2d] = 62; // "-" (base64url)
BASE64_DIGITS[0x5f] = 63; // "_" (base64url)
for (const c of [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20]) BASE64_DIGITS[c] = SKIP;
BASE64_DIGITS[0x3d] = PAD;

/** The non-ASCII characters `\s` matches, as UTF-8 (U+00A0, U+1680, U+2000–U+200A, U+2028/9, U+202F, U+205F, U+3000, U+FEFF). */
function unicodeSpaceLength(bytes: Uint8Array, i: number): number {
  const [a, b, c] = [bytes[i], bytes[i + 1], bytes[i + 2]];
  if (a === 0xc2 && b === 0xa0) return 2;
  if (a === 0xe1 && b === 0x9a && c === 0x80) return 3;
  if (a === 0xe2 && b === 0x80 && c !== undefined && (c <= 0x8a || c === 0xa8 || c === 0xa9 || c === 0xaf) && c >= 0x80) return 3;
  if (a === 0xe2 && b === 0x81 && c === 0x9f) return 3;
  if (a === 0xe3 && b === 0x80 && c === 0x80) return 3;
  if (a === 0xef && b === 0xbb && c === 0xbf) return 3;
  return 0;
}

/**
 * Decodes `bytes[start..]` as base64: white space (as `\s` matches it) ignored, then strict base64
 * (length a multiple of 4, up to two `=` at the end) or unpadded base64url. Returns a view of `bytes`.
 * Plain padded base64 up to FAST_BASE64_MAX_BYTES, what clients mostly send, is decoded natively
 * (about 3× faster than the loop below, which judges everything else and larger content: the native
 * decoder needs the text as a string, a copy as large as the content).
 */
export function decodeBase64InPlace(bytes: Buffer, start: number, field: string): Buffer {
  return decodePlainBase64InPlace(bytes, start) ?? decodeBase64InPlaceStrictly(bytes, start, field);
}

/** Larger content goes to the strict decoder: the native one needs a string copy of it. */
export const FAST_BASE64_MAX_BYTES = 1024 * 1024;

/**
 * Only for digits of the standard alphabet, padding at the end and a length a multiple of 4;
 * otherwise null with `bytes` unchanged. Node's decoder skips or stops at anything else (white
 * space, a misplaced `=`, invalid bytes) and would take base64url digits, so those inputs either
 * decode to fewer bytes than their length promises or are ruled out before.
 */
function decodePlainBase64InPlace(bytes: Buffer, start: number): Buffer | null {
  const length = bytes.length - start;
  if (length === 0 || length > FAST_BASE64_MAX_BYTES || length % 4 !== 0 || bytes.indexOf(0x2d, start) !== -1 || bytes.indexOf(0x5f, start) !== -1) return null;
  const padding = bytes[bytes.length - 1] !== 0x3d ? 0 : bytes[bytes.length - 2] !== 0x3d ? 1 : 2;
  const promised = (length / 4) * 3 - padding;
  const text = bytes.toString("latin1", start);
  const written = bytes.write(text, 0, "base64");
  if (written === promised) return bytes.subarray(0, written);
  bytes.write(text, start, "latin1");
  return null;
}

/** The whole rule set, byte by byte (exported for the tests that hold the fast path to it). */
export function decodeBase64InPlaceStrictly(bytes: Buffer, start: number, field: string): Buffer {
  let written = 0;
  let bits = 0;
  let bitCount = 0;
  let digits = 0;
  let padding = 0;
  let standardOnly = false; // "+" or "/"
  let urlOnly = false; // "-" or "_"
  let valid = true;
  for (let i = start; i < bytes.length && valid; i++) {
    const byte = bytes[i] as number;
    const digit = byte < 0x80 ? (BASE64_DIGITS[byte] as number) : INVALID;
    if (digit >= 0) {
      if (padding > 0) valid = false;
      if (byte === 0x2b || byte === 0x2f) standardOnly = true;
      if (byte === 0x2d || byte === 0x5f) urlOnly = true;
      digits++;
      bits = ((bits << 6) | digit) & 0xffffff;
      bitCount += 6;
      if (bitCount >= 8) {
        bitCount -= 8;
        bytes[written++] = (bits >> bitCount) & 0xff;
      }
    } else if (digit === PAD) {
      padding++;
    } else if (digit !== SKIP) {
      const spaceLength = byte >= 0x80 ? unicodeSpaceLength(bytes, i) : 0;
      if (spaceLength === 0) valid = false;
      else i += spaceLength - 1;
    }
  }
  const strict = !urlOnly && padding <= 2 && (digits + padding) % 4 === 0;
  const url = !standardOnly && padding === 0;
  if (!valid || !(strict || url)) throw new ApiError("upload/invalid-content", `${field} is not valid base64.`);
  return bytes.subarray(0, written);
}

const DATA_SCHEME = Buffer.from("data:");
const BASE64_MARKER = Buffer.from(";base64");

export function isDataUrl(bytes: Buffer): boolean {
  return bytes.subarray(0, DATA_SCHEME.length).equals(DATA_SCHEME);
}

/** A `data:` URL's payload: base64 when the header (up to the first comma) ends in `;base64`, else percent-encoded. */
export function decodeDataUrlInPlace(bytes: Buffer): Buffer {
  const comma = bytes.indexOf(0x2c);
  if (comma < 0) throw invalidDataUrl();
  const header = bytes.subarray(0, comma);
  const isBase64 = header.length >= BASE64_MARKER.length && header.subarray(header.length - BASE64_MARKER.length).equals(BASE64_MARKER);
  return isBase64 ? decodeBase64InPlace(bytes, comma + 1, "data") : percentDecodeInPlace(bytes, comma + 1);
}

export function invalidDataUrl(detail = ""): ApiError {
  return new ApiError("upload/invalid-content", `data is not a valid data: URL${detail}.`);
}

function hexValue(byte: number | undefined): number {
  if (byte === undefined) return INVALID;
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : INVALID;
}

/**
 * `decodeURIComponent` on bytes: every `%XX` is decoded; escaped bytes of 0x80 and above must
 * form whole, valid UTF-8 characters (no overlong forms, surrogates or code points past U+10FFFF).
 */
function percentDecodeInPlace(bytes: Buffer, start: number): Buffer {
  const escapedByte = (i: number) => {
    const [high, low] = [hexValue(bytes[i + 1]), hexValue(bytes[i + 2])];
    if (bytes[i] !== 0x25 || high < 0 || low < 0) throw invalidDataUrl(" (malformed percent-encoding)");
    return high * 16 + low;
  };
  let written = 0;
  for (let i = start; i < bytes.length; ) {
    if (bytes[i] !== 0x25) {
      bytes[written++] = bytes[i++] as number;
      continue;
    }
    const lead = escapedByte(i);
    i += 3;
    const length = lead < 0x80 ? 1 : lead >= 0xc0 && lead < 0xe0 ? 2 : lead >= 0xe0 && lead < 0xf0 ? 3 : lead >= 0xf0 && lead < 0xf8 ? 4 : 0;
    if (length === 0) throw invalidDataUrl(" (malformed percent-encoding)");
    let codePoint = length === 1 ? lead : lead & (0xff >> (length + 1));
    const sequence = [lead];
    for (let k = 1; k < length; k++) {
      const next = escapedByte(i);
      if ((next & 0xc0) !== 0x80) throw invalidDataUrl(" (malformed percent-encoding)");
      codePoint = (codePoint << 6) | (next & 0x3f);
      sequence.push(next);
      i += 3;
    }
    const minimum = [0, 0, 0x80, 0x800, 0x10000][length] as number;
    if (codePoint < minimum || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) {
      throw invalidDataUrl(" (malformed percent-encoding)");
    }
    for (const byte of sequence) bytes[written++] = byte;
  }
  return bytes.subarray(0, written);
}
