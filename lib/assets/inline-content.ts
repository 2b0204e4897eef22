import { createAssetBody, partBody, type InlineContent } from "@/lib/assets/schemas";
import { decodeBase64InPlace, decodeDataUrlInPlace, invalidDataUrl, isDataUrl } from "@/lib/assets/inline-bytes";
import { ApiError } from "@/lib/core/errors";
import { allowLargeValues, largeValueAt, type LargeValuePath } from "@/lib/http/large-values";

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

const CONTENT_FORMS = ["plainText", "base64", "uint8Array", "buffer", "data"] as const;

/** The content forms (and `buffer`'s `{type: "Buffer", data}`) below `root` may be large: read them aside. */
function contentPaths(root: string): LargeValuePath[] {
  return [...CONTENT_FORMS.map((form) => [root, form]), [root, "buffer", "data"]];
}
allowLargeValues(createAssetBody, [...contentPaths("content"), ...contentPaths("part")]);
allowLargeValues(partBody, contentPaths("part"));

/** Decodes strict base64 (or base64url); whitespace is ignored, anything else is refused. */
export function decodeBase64(text: string, field: string): Buffer {
  const compact = text.replace(/\s+/g, "");
  const valid = (BASE64.test(compact) && compact.length % 4 === 0) || BASE64URL.test(compact);
  if (!valid) throw new ApiError("upload/invalid-content", `${field} is not valid base64.`);
  return Buffer.from(compact, BASE64.test(compact) ? "base64" : "base64url");
}

function decodeDataUrl(text: string): { bytes: Buffer; mime: string | null } {
  const match = /^data:([^;,]*)((?:;[^;,]*)*?)(;base64)?,(.*)$/s.exec(text);
  if (!match) throw invalidDataUrl();
  const [, mime, , isBase64, payload = ""] = match;
  const bytes = isBase64 ? decodeBase64(payload, "data") : Buffer.from(percentDecode(payload), "utf8");
  return { bytes, mime: mime || null };
}

function percentDecode(payload: string): string {
  try {
    return decodeURIComponent(payload);
  } catch {
    throw invalidDataUrl(" (malformed percent-encoding)");
  }
}

type ContentForms = Pick<InlineContent, "plainText" | "base64" | "uint8Array" | "buffer" | "data">;

/**
 * Turns one of the five inline content forms into bytes. Large content was read aside as bytes by
 * the JSON reader (lib/http/json-reader.ts; the field holds only a placeholder) and is decoded
 * from those, in place, with the same result.
 */
export function decodeInlineContent(content: ContentForms): Buffer {
  if (content.plainText !== undefined) return largeBytes(content, "plainText", (bytes) => bytes) ?? Buffer.from(content.plainText, "utf8");
  if (content.base64 !== undefined) return largeBytes(content, "base64", (b) => decodeBase64InPlace(b, 0, "base64")) ?? decodeBase64(content.base64, "base64");
  if (content.uint8Array !== undefined) return largeBytes(content, "uint8Array", (bytes) => bytes) ?? Buffer.from(content.uint8Array);
  if (content.buffer !== undefined) {
    const value = content.buffer;
    if (typeof value === "string") return largeBytes(content, "buffer", (b) => decodeBase64InPlace(b, 0, "buffer")) ?? decodeBase64(value, "buffer");
    if (Array.isArray(value)) return largeBytes(content, "buffer", (bytes) => bytes) ?? Buffer.from(value);
    return largeBytes(value, "data", (bytes) => bytes) ?? Buffer.from(value.data);
  }
  if (content.data !== undefined) {
    const value = content.data;
    if (Array.isArray(value)) return largeBytes(content, "data", (bytes) => bytes) ?? Buffer.from(value);
    const large = largeBytes(content, "data", (b) => (isDataUrl(b) ? decodeDataUrlInPlace(b) : decodeBase64InPlace(b, 0, "data")));
    if (large) return large;
    return value.startsWith("data:") ? decodeDataUrl(value).bytes : decodeBase64(value, "data");
  }
  throw new ApiError("request/validation-failed", "Content has no bytes.");
}

const decodedLargeValues = new WeakMap<Buffer, Buffer | ApiError>();

/** The large value read aside for `holder[key]`, decoded once (decoding overwrites its input). */
function largeBytes(holder: object, key: string, decode: (bytes: Buffer) => Buffer): Buffer | undefined {
  const large = largeValueAt(holder, key);
  if (!large) return undefined;
  let decoded = decodedLargeValues.get(large.bytes);
  if (!decoded) {
    try {
      decoded = decode(large.bytes);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      decoded = error;
    }
    decodedLargeValues.set(large.bytes, decoded);
  }
  if (decoded instanceof ApiError) throw decoded;
  return decoded;
}
