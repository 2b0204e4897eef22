import type { InlineContent } from "@/lib/assets/schemas";
import { ApiError } from "@/lib/core/errors";

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/** Decodes strict base64 (or base64url); whitespace is ignored, anything else is refused. */
export function decodeBase64(text: string, field: string): Buffer {
  const compact = text.replace(/\s+/g, "");
  const valid = (BASE64.test(compact) && compact.length % 4 === 0) || BASE64URL.test(compact);
  if (!valid) throw new ApiError("upload/invalid-content", `${field} is not valid base64.`);
  return Buffer.from(compact, BASE64.test(compact) ? "base64" : "base64url");
}

function decodeDataUrl(text: string): { bytes: Buffer; mime: string | null } {
  const match = /^data:([^;,]*)((?:;[^;,]*)*?)(;base64)?,(.*)$/s.exec(text);
  if (!match) throw new ApiError("upload/invalid-content", "data is not a valid data: URL.");
  const [, mime, , isBase64, payload = ""] = match;
  const bytes = isBase64 ? decodeBase64(payload, "data") : Buffer.from(decodeURIComponent(payload), "utf8");
  return { bytes, mime: mime || null };
}

/** Turns one of the five inline content forms into bytes. */
export function decodeInlineContent(content: Pick<InlineContent, "plainText" | "base64" | "uint8Array" | "buffer" | "data">): Buffer {
  if (content.plainText !== undefined) return Buffer.from(content.plainText, "utf8");
  if (content.base64 !== undefined) return decodeBase64(content.base64, "base64");
  if (content.uint8Array !== undefined) return Buffer.from(content.uint8Array);
  if (content.buffer !== undefined) {
    const value = content.buffer;
    if (typeof value === "string") return decodeBase64(value, "buffer");
    return Buffer.from(Array.isArray(value) ? value : value.data);
  }
  if (content.data !== undefined) {
    const value = content.data;
    if (Array.isArray(value)) return Buffer.from(value);
    return value.startsWith("data:") ? decodeDataUrl(value).bytes : decodeBase64(value, "data");
  }
  throw new ApiError("request/validation-failed", "Content has no bytes.");
}
