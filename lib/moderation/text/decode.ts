import { decodeBody } from "@/lib/media/website";

/**
 * Bytes to the text the classifiers judge, whatever the upload's declared type or charset said: a
 * moderation service judges content by its bytes (the stored bytes are never changed).
 * - Encoding: a BOM (UTF-8, UTF-16LE/BE) wins; else the UTF-16 zero-byte pattern of mostly-ASCII
 *   text; else UTF-8 when the bytes are valid UTF-8; else windows-1252 (a superset of Latin-1's
 *   printable range). The bytes are then decoded by the same decoder as fetched web pages
 *   (lib/media/page-decoding.ts, which maps windows-1252 properly on Node 20).
 * - Control characters (NUL, …) become spaces, so one appended `\0` cannot hide a threat.
 * - `textLike` tells whether bytes are text at all: after decoding, at most 10% of the characters
 *   are control or replacement characters.
 */

export type TextEncodingName = "utf-8" | "utf-16le" | "utf-16be" | "windows-1252";

export interface DecodedText {
  /** For the classifiers: control characters replaced by spaces. */
  text: string;
  encoding: TextEncodingName;
  /** Share of characters that were control or replacement characters (0..1). */
  controlShare: number;
}

const CONTROL = /[\u0000-\u0008\u000b\u000e-\u001f\u007f-\u009f\ufffd]/g;
const MAX_CONTROL_SHARE = 0.1;
/** The UTF-16 heuristic looks at this many leading bytes. */
const PATTERN_SAMPLE = 4096;

export function detectTextEncoding(bytes: Uint8Array): TextEncodingName {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8";
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return utf16Pattern(bytes) ?? (isValidUtf8(bytes) ? "utf-8" : "windows-1252");
}

/** UTF-16 without BOM: most odd (LE) or even (BE) bytes are zero, the others mostly not. */
function utf16Pattern(bytes: Uint8Array): "utf-16le" | "utf-16be" | null {
  const n = Math.min(bytes.length, PATTERN_SAMPLE) & ~1;
  if (n < 4) return null;
  let zeroEven = 0;
  let zeroOdd = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) zeroEven++;
    if (bytes[i + 1] === 0) zeroOdd++;
  }
  const pairs = n / 2;
  if (zeroOdd / pairs > 0.6 && zeroEven / pairs < 0.1) return "utf-16le";
  if (zeroEven / pairs > 0.6 && zeroOdd / pairs < 0.1) return "utf-16be";
  return null;
}

function isValidUtf8(bytes: Uint8Array): boolean {
  try {
    // stream: true tolerates a character cut at the end of a truncated read.
    new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true });
    return true;
  } catch {
    return false;
  }
}

export function decodeTextForAnalysis(bytes: Uint8Array): DecodedText {
  const encoding = detectTextEncoding(bytes);
  // A byte-order mark is dropped by the decoder.
  const raw = decodeBody(bytes, encoding, false).text;
  let controls = 0;
  const text = raw.replace(CONTROL, () => {
    controls++;
    return " ";
  });
  return { text, encoding, controlShare: raw.length === 0 ? 0 : controls / raw.length };
}

/** Whether bytes read as text (for content declared or detected as something else). */
export function textLike(bytes: Uint8Array): DecodedText | null {
  if (bytes.length === 0) return null;
  const decoded = decodeTextForAnalysis(bytes);
  if (decoded.controlShare > MAX_CONTROL_SHARE) return null;
  // Text has letters; a run of bytes that happen to decode (windows-1252 decodes anything) may not.
  const letters = decoded.text.match(/\p{L}/gu)?.length ?? 0;
  return letters >= Math.min(3, decoded.text.trim().length) && letters / Math.max(1, decoded.text.length) > 0.2 ? decoded : null;
}
