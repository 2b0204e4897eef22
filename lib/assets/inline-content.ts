import { createAssetBody, partBody, type InlineContent } from "@/lib/assets/schemas";
import { decodeBase64InPlace, decodeDataUrlInPlace, isDataUrl } from "@/lib/assets/inline-bytes";
import { ApiError } from "@/lib/core/errors";
import { allowLargeValues, largeValueAt, type LargeValuePath } from "@/lib/http/large-values";

const CONTENT_FORMS = ["plainText", "base64", "uint8Array", "buffer", "data"] as const;

/** The content forms (and `buffer`'s `{type: "Buffer", data}`) below `root` may be large: read them aside. */
function contentPaths(root: string): LargeValuePath[] {
  return [...CONTENT_FORMS.map((form) => [root, form]), [root, "buffer", "data"]];
}
allowLargeValues(createAssetBody, [...contentPaths("content"), ...contentPaths("part")]);
allowLargeValues(partBody, contentPaths("part"));

type ContentForms = Pick<InlineContent, "plainText" | "base64" | "uint8Array" | "buffer" | "data">;

/**
 * Turns one of the five inline content forms into bytes. Text forms are decoded from their UTF-8
 * bytes in place (lib/assets/inline-bytes.ts); large content was read aside as such bytes by the
 * JSON reader (lib/http/json-reader.ts; the field holds only a placeholder), small content is
 * encoded here, so both go through the same decoder.
 */
export function decodeInlineContent(content: ContentForms): Buffer {
  if (content.plainText !== undefined) return textForm(content, "plainText", asIs);
  if (content.base64 !== undefined) return textForm(content, "base64", base64("base64"));
  if (content.uint8Array !== undefined) return arrayForm(content, "uint8Array");
  if (content.buffer !== undefined) {
    const value = content.buffer;
    if (typeof value === "string") return textForm(content, "buffer", base64("buffer"));
    return Array.isArray(value) ? arrayForm(content, "buffer") : arrayForm(value, "data");
  }
  if (content.data !== undefined) return typeof content.data === "string" ? textForm(content, "data", dataText) : arrayForm(content, "data");
  throw new ApiError("request/validation-failed", "Content has no bytes.");
}

const asIs = (bytes: Buffer) => bytes;
const base64 = (field: string) => (bytes: Buffer) => decodeBase64InPlace(bytes, 0, field);
/** `data`: a data: URL, else base64 text. */
const dataText = (bytes: Buffer) => (isDataUrl(bytes) ? decodeDataUrlInPlace(bytes) : decodeBase64InPlace(bytes, 0, "data"));

type Holder = Record<string, unknown>;

function textForm(holder: object, key: string, decode: (bytes: Buffer) => Buffer): Buffer {
  return largeBytes(holder, key, decode) ?? decode(Buffer.from((holder as Holder)[key] as string, "utf8"));
}

function arrayForm(holder: object, key: string): Buffer {
  return largeBytes(holder, key, asIs) ?? Buffer.from((holder as Holder)[key] as number[]);
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
