import { C1 } from "./html-entities";

/** A fetched page's bytes to a string: its media type and charset, byte-order marks, <meta charset>. */

export function parseContentType(header: string | null): { mediaType: string | null; charset: string | null } {
  if (!header) return { mediaType: null, charset: null };
  const [type = "", ...params] = header.split(";");
  let charset: string | null = null;
  for (const param of params) {
    const m = /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(param);
    if (m) charset = m[1]!.toLowerCase();
  }
  return { mediaType: type.trim().toLowerCase() || null, charset };
}

/**
 * Decodes with, in order: a byte-order mark, the Content-Type charset, (HTML only) a
 * `<meta charset>` / `<meta http-equiv="Content-Type">` in the first 4 KiB, else UTF-8. Labels are
 * WHATWG encoding labels, so latin1 / iso-8859-1 / us-ascii mean windows-1252, as in browsers.
 * Unknown labels fall back to UTF-8.
 */
export function decodeBody(bytes: Uint8Array, headerCharset: string | null, isHtml: boolean): { text: string; encoding: string } {
  let label: string | null = null;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) label = "utf-8";
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) label = "utf-16be";
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) label = "utf-16le";
  const candidates = [label, headerCharset];
  if (isHtml) {
    const meta = sniffMetaCharset(bytes);
    // A meta tag that could be read as ASCII cannot truly mean UTF-16 (HTML spec: use UTF-8).
    candidates.push(meta && /^utf-?16/i.test(meta) ? "utf-8" : meta);
  }
  for (const candidate of candidates) {
    const decoder = candidate ? tryDecoder(candidate) : null;
    if (decoder) return { text: decode(decoder, bytes), encoding: decoder.encoding };
  }
  const utf8 = new TextDecoder("utf-8");
  return { text: utf8.decode(bytes), encoding: utf8.encoding };
}

/**
 * Node 20's TextDecoder decodes "windows-1252" (and so latin1 / iso-8859-1 / ascii labels) as ISO
 * 8859-1, turning 0x80..0x9F into C1 controls instead of "€", curly quotes, dashes...
 */
function decode(decoder: TextDecoder, bytes: Uint8Array): string {
  if (decoder.encoding !== "windows-1252") return decoder.decode(bytes);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString("latin1")
    .replace(/[\u0080-\u009f]/g, (c) => String.fromCharCode(C1[c.charCodeAt(0)] ?? c.charCodeAt(0)));
}

function tryDecoder(label: string): TextDecoder | null {
  try {
    return new TextDecoder(label.trim());
  } catch {
    return null;
  }
}

function sniffMetaCharset(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 4096)).toString("latin1");
  const withoutComments = head.replace(/<!--[\s\S]*?-->/g, "");
  const m = /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([a-z0-9._:-]+)/i.exec(withoutComments);
  return m ? m[1]!.toLowerCase() : null;
}
