import { fileTypeFromBuffer } from "file-type";
import sharp from "sharp";
import type { ImageData } from "@/lib/assets/field-schemas";

/**
 * What an upload really is. Principle: the bytes win. file-type's magic-number detection overrides
 * the declared MIME whenever it recognises the bytes; the declared type is only trusted for what
 * magic numbers cannot tell (text formats, unknown binaries). Nothing is rejected here: callers
 * apply size and type rules to the result.
 */

export type AssetType =
  | "image"
  | "video"
  | "audio"
  | "plaintext-document"
  | "multimedia-document"
  | "website"
  | "file";

export interface DetectedContent {
  /** Normalised MIME type: lower case, no parameters. */
  mime: string;
  /** Without the dot, lower case; null when unknown. */
  extension: string | null;
  type: AssetType;
}

/** How many leading bytes detectContent wants (file-type's own sample size). */
export const CONTENT_HEAD_BYTES = 4100;

/** Text checks look at most this much, so passing a whole large file stays cheap. */
const TEXT_SNIFF_BYTES = 64 * 1024;

const OCTET_STREAM = "application/octet-stream";

const ALIASES: Record<string, string> = {
  "image/jpg": "image/jpeg",
  "image/pjpeg": "image/jpeg",
  "image/x-png": "image/png",
  "text/x-markdown": "text/markdown",
  "text/json": "application/json",
  "application/x-json": "application/json",
  "text/x-csv": "text/csv",
  "application/csv": "text/csv",
  "application/x-yaml": "application/yaml",
  "text/x-yaml": "application/yaml",
  "text/yaml": "application/yaml",
  "application/javascript": "text/javascript",
  "application/x-javascript": "text/javascript",
  "audio/x-wav": "audio/wav",
  "audio/wave": "audio/wav",
  "application/x-pdf": "application/pdf",
  "binary/octet-stream": OCTET_STREAM,
};

const MIME_EXTENSIONS: Record<string, string> = {
  "text/plain": "txt",
  "text/markdown": "md",
  "text/csv": "csv",
  "text/tab-separated-values": "tsv",
  "application/json": "json",
  "application/ld+json": "jsonld",
  "application/x-ndjson": "ndjson",
  "application/yaml": "yaml",
  "application/toml": "toml",
  "text/html": "html",
  "application/xhtml+xml": "xhtml",
  "image/svg+xml": "svg",
  "application/xml": "xml",
  "text/xml": "xml",
  "text/css": "css",
  "text/javascript": "js",
  "text/calendar": "ics",
  "text/vtt": "vtt",
  "application/rtf": "rtf",
  "text/rtf": "rtf",
  "application/pdf": "pdf",
  "application/msword": "doc",
  "application/vnd.ms-excel": "xls",
  "application/vnd.ms-powerpoint": "ppt",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
  "application/vnd.oasis.opendocument.text": "odt",
  "application/vnd.oasis.opendocument.spreadsheet": "ods",
  "application/vnd.oasis.opendocument.presentation": "odp",
  "application/epub+zip": "epub",
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/avif": "avif",
  "image/heic": "heic",
  "image/bmp": "bmp",
  "image/tiff": "tif",
  "video/mp4": "mp4",
  "video/webm": "webm",
  "video/quicktime": "mov",
  "audio/mpeg": "mp3",
  "audio/wav": "wav",
  "audio/ogg": "ogg",
  "audio/flac": "flac",
  "application/zip": "zip",
};

const WEBSITE = new Set(["text/html", "application/xhtml+xml"]);

function isMultimediaDocument(mime: string): boolean {
  return (
    ["application/pdf", "application/rtf", "text/rtf", "application/epub+zip", "application/msword"].includes(mime) ||
    /^application\/vnd\.(openxmlformats-officedocument\.|oasis\.opendocument\.|ms-(excel|powerpoint|word)\b)/.test(mime)
  );
}

/** Types whose content is human-readable text (so a text sniff is meaningful). */
function isTextual(mime: string): boolean {
  return (
    mime.startsWith("text/") ||
    /\+(json|xml)$/.test(mime) ||
    ["application/json", "application/xml", "application/yaml", "application/toml", "application/x-ndjson"].includes(mime)
  );
}

/**
 * Containers file-type reports when it cannot see deeper (a 4100-byte head of a large OOXML file
 * may only show "zip"; legacy Office files are all "cfb"). A declared type that is a specific
 * format of that container is kept: it refines the detection instead of contradicting it.
 */
const CONTAINER_REFINEMENTS: Record<string, (declared: string) => boolean> = {
  "application/zip": (d) =>
    /^application\/(vnd\.(openxmlformats-officedocument|oasis\.opendocument)\.|vnd\.ms-[a-z]+\.[a-z.]*macroenabled|epub\+zip$)/.test(d),
  "application/x-cfb": (d) =>
    ["application/msword", "application/vnd.ms-excel", "application/vnd.ms-powerpoint", "application/vnd.ms-outlook", "application/vnd.visio"].includes(d),
};

const MIME_PATTERN = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

/** Lower case, parameters stripped, common aliases mapped; null when missing or malformed. */
export function normaliseMime(value: string | null | undefined): string | null {
  const essence = value?.split(";", 1)[0]?.trim().toLowerCase();
  if (!essence || !MIME_PATTERN.test(essence)) return null;
  return ALIASES[essence] ?? essence;
}

export function assetTypeForMime(mime: string): AssetType {
  if (WEBSITE.has(mime)) return "website";
  if (isMultimediaDocument(mime)) return "multimedia-document";
  const top = mime.split("/", 1)[0];
  if (top === "image" || top === "video" || top === "audio") return top;
  if (isTextual(mime)) return "plaintext-document";
  return "file";
}

export async function detectContent(
  head: Buffer,
  declaredMime: string | null,
  fileName?: string | null,
): Promise<DetectedContent> {
  const declared = normaliseMime(declaredMime);
  const sample = head.subarray(0, TEXT_SNIFF_BYTES);
  // A UTF-16 BOM (FF FE) doubles as an MPEG audio frame sync, so file-type calls such text
  // audio/mpeg: when the bytes after a BOM decode as clean text, it is text.
  const bomText = hasUtf16Bom(sample) ? decodeText(sample, null) : null;
  const detected = head.length > 0 && bomText === null ? await fileTypeFromBuffer(head) : undefined;

  // file-type's "application/xml" only means "starts with <?xml": the text sniff below knows more.
  if (detected && detected.mime !== "application/xml") {
    if (declared && CONTAINER_REFINEMENTS[detected.mime]?.(declared)) return result(declared, null, fileName);
    return result(detected.mime, detected.ext, fileName);
  }

  const text = bomText ?? (sample.length > 0 ? decodeText(sample, charsetOf(declaredMime)) : null);
  if (text !== null) {
    const truncated = head.length > sample.length || head.length >= CONTENT_HEAD_BYTES;
    return result(chooseTextMime(sniffText(text, truncated), declared), null, fileName);
  }
  if (detected) return result(detected.mime, detected.ext, fileName);
  // Binary that claims to be text is not text; any other claim is kept (e.g. a format file-type
  // does not know, or a corrupt image that later processing will reject).
  const fallback = declared && !isTextual(declared) ? declared : OCTET_STREAM;
  return result(head.length === 0 ? (declared ?? OCTET_STREAM) : fallback, null, fileName);
}

function result(mime: string, detectedExt: string | null, fileName: string | null | undefined): DetectedContent {
  return { mime, extension: detectedExt ?? MIME_EXTENSIONS[mime] ?? extensionOf(fileName), type: assetTypeForMime(mime) };
}

type Sniffed = "image/svg+xml" | "application/xhtml+xml" | "application/xml" | "text/html" | "application/json";

/**
 * For content that is text. SVG always wins (it is an active format, so its real type matters
 * most). A specific declared text type (text/markdown, text/csv, application/json, ...) is kept
 * otherwise; a generic or non-text declaration gives way to the sniffed type, then text/plain.
 */
function chooseTextMime(sniffed: Sniffed | null, declared: string | null): string {
  if (sniffed === "image/svg+xml") return sniffed;
  if (declared && isTextual(declared) && declared !== "text/plain") return declared;
  if (sniffed) return sniffed;
  if (declared && declared !== OCTET_STREAM && !isTextual(declared)) return declared;
  return "text/plain";
}

function charsetOf(value: string | null): string | null {
  return /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(value ?? "")?.[1]?.toLowerCase() ?? null;
}

// WHATWG MIME sniffing's "binary data bytes": control characters that do not occur in text.
const BINARY_BYTES = /[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f]/;
const SINGLE_BYTE_CHARSET = /^(iso-8859-\d+|latin1|windows-125\d|cp125\d|us-ascii|ascii|koi8-[ru])$/;

/** The text of `head` when it is text (valid UTF-8, UTF-16 with BOM, or a declared 8-bit charset). */
function decodeText(head: Buffer, charset: string | null): string | null {
  if (hasUtf16Bom(head)) {
    try {
      const encoding = head[0] === 0xff ? "utf-16le" : "utf-16be";
      const text = new TextDecoder(encoding, { fatal: true }).decode(head.subarray(2), { stream: true });
      return BINARY_BYTES.test(text) ? null : text;
    } catch {
      return null;
    }
  }
  const latin = head.toString("latin1");
  if (BINARY_BYTES.test(latin)) return null;
  try {
    // stream: true tolerates a multi-byte character cut off at the end of the head.
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(head, { stream: true });
  } catch {
    return charset && SINGLE_BYTE_CHARSET.test(charset) ? latin : null;
  }
}

function hasUtf16Bom(head: Buffer): boolean {
  return (head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff);
}

const HTML_START =
  /^<(!doctype\s+html|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p|!--)[\s>]/i;
// Skips what may precede an XML root: prolog, processing instructions, comments, doctype.
const XML_PREAMBLE = /^(?:\s+|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!doctype[^[>]*(?:\[[\s\S]*?\])?\s*>)*/i;

function sniffText(text: string, truncated: boolean): Sniffed | null {
  const trimmed = text.replace(/^\ufeff/, "").trimStart();
  const afterPreamble = trimmed.slice(XML_PREAMBLE.exec(trimmed)?.[0].length ?? 0);
  const root = /^<([a-z_][\w.-]*:)?([a-z_][\w.-]*)[\s/>]/i.exec(afterPreamble);
  if (root?.[2]?.toLowerCase() === "svg") return "image/svg+xml";
  if (trimmed.startsWith("<?xml")) return root?.[2]?.toLowerCase() === "html" ? "application/xhtml+xml" : "application/xml";
  if (HTML_START.test(trimmed)) return "text/html";
  if (looksLikeJson(trimmed, truncated)) return "application/json";
  return null;
}

function looksLikeJson(text: string, truncated: boolean): boolean {
  if (text[0] !== "{" && text[0] !== "[") return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    // A head cut from a large document cannot parse; accept an unmistakable JSON opening.
    return truncated && /^(\{\s*("|\})|\[\s*[[{"\d\]-])/.test(text);
  }
}

function extensionOf(fileName: string | null | undefined): string | null {
  const base = fileName?.split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  const ext = dot > 0 ? base.slice(dot + 1).toLowerCase() : "";
  return /^[a-z0-9]{1,10}$/.test(ext) ? ext : null;
}

/**
 * What describeImage reads from an upload's header: the documented `imageData` (field-schemas.ts)
 * with every field an upload has. `width`/`height` are of one page/frame as stored (before EXIF
 * rotation); multiply by `pages` for the total pixel count of an animation.
 */
export type ImageDescription = Required<Pick<ImageData, "width" | "height" | "format" | "hasAlpha" | "pages">> & Pick<ImageData, "orientation">;

/**
 * Header limit for describeImage: sharp's metadata() refuses images whose header claims more pixels
 * than this (it never decodes). Far above any policy limit, so real images get described and
 * callers apply their own megapixel rules; absurd headers read as "not an image".
 */
export const DESCRIBE_MAX_INPUT_PIXELS = 16_384 * 16_384;

/** Dimensions and format from the image header only (no pixel decode); null when sharp cannot read it. */
export async function describeImage(input: Buffer | string): Promise<ImageDescription | null> {
  try {
    const m = await sharp(input, { limitInputPixels: DESCRIBE_MAX_INPUT_PIXELS }).metadata();
    if (!m.width || !m.height || !m.format) return null;
    return {
      width: m.width,
      height: m.height,
      format: m.format,
      hasAlpha: m.hasAlpha,
      pages: m.pages ?? 1,
      ...(m.orientation ? { orientation: m.orientation } : {}),
    };
  } catch {
    return null;
  }
}
