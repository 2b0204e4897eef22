import type { Readable } from "node:stream";
import type { Config } from "@/lib/core/config";

/**
 * The one object-storage interface of Sieve. Two backends implement it (fs.ts, s3.ts) and one
 * contract test suite (storage.test.ts) runs against both, so callers never branch on the driver.
 *
 * Keys are `a/b/c` paths chosen by our own code (never by users); see `assertValidKey`.
 */
export interface Storage {
  /**
   * Whether the backend persists the content type given to put and reports it from get/head:
   * true for S3; false for fs, which keeps plain files only (the database records every object's
   * content type, and that is what gets served).
   */
  readonly keepsContentType: boolean;
  /**
   * Streams `body` into `key`, hashing while writing. Atomic: readers see the old object (or
   * none) until the new one is complete; a failed put (source error, `maxBytes` exceeded →
   * ApiError "upload/too-large") leaves nothing behind.
   */
  put(key: string, body: PutBody, opts?: PutOptions): Promise<PutResult>;
  /**
   * Opens an object for reading, or null when absent. With `range`, only bytes start..end
   * (inclusive, end clamped to the last byte) are streamed; a start beyond the end throws a
   * RangeError. The caller must consume or destroy `body`.
   */
  get(key: string, opts?: GetOptions): Promise<GetResult | null>;
  head(key: string): Promise<ObjectInfo | null>;
  /** Removes an object; absent is fine. */
  delete(key: string): Promise<void>;
  /**
   * Removes every object whose key starts with `prefix` (plain string prefix, as in S3, so
   * "a/b" also matches "a/bc/d") and returns how many were removed. An empty prefix is refused.
   */
  deletePrefix(prefix: string): Promise<number>;
  /** Writes the sources one after the other into `targetKey` (same guarantees as put). */
  concat(targetKey: string, sourceKeys: readonly string[], opts?: PutOptions): Promise<PutResult>;
}

export type StorageConfig = Config["storage"];

export type PutBody = Readable | Buffer | Uint8Array;

export interface PutOptions {
  /** Stored only by backends with `keepsContentType` (S3); the fs backend ignores it. */
  contentType?: string;
  /** Larger content is rejected with ApiError "upload/too-large" while streaming. */
  maxBytes?: number;
  /**
   * false: the object may be lost in a crash (no fsync), for copies that can be made again (the
   * CDN's derived images). Still atomic. Default true. Backends that are always durable ignore it.
   */
  durable?: boolean;
}

export interface PutResult {
  sizeInBytes: number;
  /** Lower-case hex digests of the whole content. */
  sha256: string;
  md5: string;
}

export interface ByteRange {
  start: number;
  /** Inclusive; omitted means "to the end". */
  end?: number;
}

export interface GetOptions {
  range?: ByteRange;
}

export interface ObjectInfo {
  /** Size of the whole object (not of the range). */
  sizeInBytes: number;
  /**
   * What put stored, where the backend keeps content types (S3; "application/octet-stream" when
   * put was given none); the fs backend keeps plain files only (the database records content
   * types), so there it is undefined. See Storage.keepsContentType.
   */
  contentType?: string;
  /** A quoted entity tag that changes whenever the object is rewritten. */
  etag?: string;
}

export interface GetResult extends ObjectInfo {
  body: Readable;
  /** The bytes actually streamed (inclusive), present when a range was requested. */
  range?: { start: number; end: number };
}

export const DEFAULT_CONTENT_TYPE = "application/octet-stream";

/**
 * Keys are `/`-separated segments. Rejected: empty segments (so no leading, trailing or double
 * slash), segments starting with "." (covers "." and ".." and keeps the fs backend's hidden temp
 * files out of the key space), backslashes and control characters (NUL included).
 * Both backends enforce the same rules so a key valid on one is valid on the other.
 */
export function assertValidKey(key: string): void {
  if (!isValidKeyPath(key)) throw new Error(`Invalid storage key: ${JSON.stringify(key)}`);
}

/** A prefix is a valid key path optionally ending with "/" or a partial last segment. */
export function assertValidPrefix(prefix: string): void {
  const trimmed = prefix.endsWith("/") ? prefix.slice(0, -1) : prefix;
  if (!isValidKeyPath(trimmed)) throw new Error(`Invalid storage prefix: ${JSON.stringify(prefix)}`);
}

function isValidKeyPath(key: string): boolean {
  if (key.length === 0 || Buffer.byteLength(key) > 1024) return false;
  if (/[\\\u0000-\u001f\u007f]/.test(key)) return false;
  return key.split("/").every((segment) => segment.length > 0 && !segment.startsWith("."));
}

/** Validates a requested range; `end` may exceed the object and is clamped by the backend. */
export function assertValidRange(range: ByteRange): void {
  const { start, end } = range;
  const ok =
    Number.isSafeInteger(start) && start >= 0 && (end === undefined || (Number.isSafeInteger(end) && end >= start));
  if (!ok) throw new RangeError(`Invalid byte range ${start}-${end ?? ""}`);
}
