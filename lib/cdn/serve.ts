import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import { previewContentKey } from "@/lib/assets/storage-keys";
import { ApiError } from "@/lib/core/errors";
import type { CdnAsset } from "@/lib/cdn/asset-state";
import { ACTIVE_CONTENT_CSP, contentDisposition, etagMatches, isActiveContent, parseRange } from "@/lib/cdn/conditional";
import { derivedBytes } from "@/lib/cdn/derived-cache";
import { contentUnavailable, derivedImage, readWhole } from "@/lib/cdn/derived-production";
import type { CdnRequest, CdnResponse } from "@/lib/cdn/response";
import { previewIdentity, type Source, type Variant } from "@/lib/cdn/variant";
import { storage } from "@/lib/storage";

/** Stored files up to this size are kept in memory after the first read; larger ones stream from storage. */
const MEMOIZED_STORED_BYTES = 1024 * 1024;
/** A transform reads its whole source; larger stored images are refused rather than buffered. */
const MAX_TRANSFORM_SOURCE_BYTES = 64 * 1024 * 1024;

interface StoredFile {
  key: string;
  contentType: string;
  etag: string;
  size: number | null;
  filename: string;
}

function storedFile(asset: CdnAsset, source: Source): StoredFile {
  if (source === "preview") {
    if (!asset.previewImage) throw new ApiError("asset/no-preview", "This asset has no preview (previews exist for retained images, PDFs, videos and websites).");
    const identity = createHash("sha256").update(`${asset.id}|${previewIdentity(asset)}`).digest("base64url").slice(0, 32);
    return { key: previewContentKey(asset.projectId, asset.id), contentType: "image/webp", etag: `"p-${identity}"`, size: asset.previewImage.sizeInBytes ?? null, filename: `${baseName(asset.name)}.webp` };
  }
  return {
    key: asset.storageId as string,
    contentType: asset.fileFormat ?? "application/octet-stream",
    etag: `"c-${asset.sha256?.slice(0, 40) ?? createHash("sha256").update(asset.storageId ?? asset.id).digest("hex").slice(0, 40)}"`,
    size: asset.sizeInBytes,
    filename: asset.name,
  };
}

/** The stored original or preview: memory for small files, a (ranged) storage stream otherwise. */
export async function serveStored(asset: CdnAsset, source: Source, request: CdnRequest, cacheControl: string): Promise<CdnResponse> {
  const file = storedFile(asset, source);
  const headers = baseHeaders(file.contentType, file.etag, cacheControl, file.filename);
  if (etagMatches(request.header("if-none-match"), file.etag)) return { status: 304, headers, body: null };
  if (file.size !== null && file.size <= MEMOIZED_STORED_BYTES) {
    const bytesKey = storedBytesKey(asset, file);
    const bytes = await derivedBytes({ key: bytesKey, assetId: asset.id, produce: () => readWhole(asset, file.key, file.contentType) });
    return { ...withBody(headers, bytes.data, request, file.etag), memoKey: bytesKey };
  }
  // The size comes from the record (one storage call for a GET: the read); a HEAD, or a record
  // without a size, asks storage once whether the file is there and how large it is.
  let size = file.size;
  if (size === null || request.method === "HEAD") {
    const stored = await storage().head(file.key);
    if (!stored) throw contentUnavailable(asset);
    size ??= stored.sizeInBytes;
  }
  const range = parseRange(request.header("range"), size, request.header("if-range"), file.etag);
  if (range.kind === "unsatisfiable") unsatisfiable(size);
  if (request.method === "HEAD") return { status: 200, headers: { ...headers, "Content-Length": String(size) }, body: null };
  const object = await storage().get(file.key, range.kind === "range" ? { range: { start: range.start, end: range.end } } : undefined);
  if (!object) throw contentUnavailable(asset);
  if (range.kind === "range") return { status: 206, headers: partialHeaders(headers, range, size), body: object.body };
  return { status: 200, headers: { ...headers, "Content-Length": String(object.sizeInBytes) }, body: object.body as Readable };
}

/** A transform or lens output: memory, else the stored derived copy, else transformed once. */
export async function serveDerived(asset: CdnAsset, variant: Extract<Variant, { kind: "derived" }>, request: CdnRequest, cacheControl: string): Promise<CdnResponse> {
  // A 304 carries the validators only: the format is known once the bytes are.
  if (etagMatches(request.header("if-none-match"), variant.etag)) return { status: 304, headers: { ETag: variant.etag, "Cache-Control": cacheControl }, body: null };
  const source = storedFile(asset, variant.source);
  if (source.size !== null && source.size > MAX_TRANSFORM_SOURCE_BYTES) {
    throw new ApiError("asset/transform-failed", `The stored file (${source.size} bytes) is larger than transforms accept (${MAX_TRANSFORM_SOURCE_BYTES} bytes).`);
  }
  const bytes = await derivedImage({
    key: variant.cacheKey,
    assetId: asset.id,
    storageKey: variant.storageKey,
    steps: variant.steps,
    source: { storageKey: source.key, memoKey: storedBytesKey(asset, source), contentType: source.contentType },
    visibility: asset.visibility,
  });
  const filename = `${baseName(asset.name)}.${bytes.contentType.split("/")[1] ?? "img"}`;
  return { ...withBody(baseHeaders(bytes.contentType, variant.etag, cacheControl, filename), bytes.data, request, variant.etag), memoKey: variant.cacheKey };
}

function storedBytesKey(asset: CdnAsset, file: StoredFile): string {
  return `${asset.id}|stored|${file.etag}`;
}

function withBody(headers: Record<string, string>, data: Buffer, request: CdnRequest, etag: string): CdnResponse {
  const range = parseRange(request.header("range"), data.length, request.header("if-range"), etag);
  if (range.kind === "unsatisfiable") unsatisfiable(data.length);
  if (range.kind === "range") return { status: 206, headers: partialHeaders(headers, range, data.length), body: data.subarray(range.start, range.end + 1) };
  return { status: 200, headers: { ...headers, "Content-Length": String(data.length) }, body: data };
}

function partialHeaders(headers: Record<string, string>, range: { start: number; end: number }, size: number): Record<string, string> {
  return { ...headers, "Content-Length": String(range.end - range.start + 1), "Content-Range": `bytes ${range.start}-${range.end}/${size}` };
}

function unsatisfiable(size: number): never {
  throw new ApiError("request/range-not-satisfiable", `The range is outside the ${size} bytes of this file.`, { headers: { "Content-Range": `bytes */${size}` } });
}

function baseHeaders(contentType: string, etag: string, cacheControl: string, filename: string): Record<string, string> {
  const active = isActiveContent(contentType);
  return {
    "Content-Type": contentType,
    ETag: etag,
    "Cache-Control": cacheControl,
    "Accept-Ranges": "bytes",
    "X-Content-Type-Options": "nosniff",
    "Content-Disposition": contentDisposition(active ? "attachment" : "inline", filename),
    ...(active && { "Content-Security-Policy": ACTIVE_CONTENT_CSP }),
  };
}

function baseName(name: string): string {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}
