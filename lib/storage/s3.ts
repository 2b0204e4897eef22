import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
  S3ServiceException,
  paginateListObjectsV2,
  type GetObjectCommandOutput,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { HashingMeter, readSequentially, toReadable } from "./hashing";
import {
  DEFAULT_CONTENT_TYPE,
  assertValidKey,
  assertValidPrefix,
  assertValidRange,
  type GetOptions,
  type GetResult,
  type ObjectInfo,
  type PutBody,
  type PutOptions,
  type PutResult,
  type Storage,
  type StorageConfig,
} from "./types";

/** lib-storage keeps up to queueSize × partSize bytes in memory per upload: 2 × 5 MiB here. */
const UPLOAD_PART_BYTES = 5 * 1024 * 1024;
const UPLOAD_QUEUE_SIZE = 2;

export function createS3Client(cfg: StorageConfig["s3"]): S3Client {
  const { region, endpoint, accessKeyId, secretAccessKey, forcePathStyle } = cfg;
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    throw new Error("S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together");
  }
  return new S3Client({
    region,
    endpoint,
    forcePathStyle,
    // Without explicit keys the SDK's default chain applies (env, profile, instance role).
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
    // The SDK's default (WHEN_SUPPORTED) adds CRC32 checksum headers / aws-chunked bodies that
    // several S3-compatible servers reject or store verbatim. We hash every upload ourselves, so
    // only send checksums where the S3 API demands them (e.g. DeleteObjects).
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

/** Objects in one bucket under an optional key prefix (S3_PREFIX, used as a "directory"). */
export class S3Storage implements Storage {
  readonly keepsContentType = true;
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;

  constructor(cfg: StorageConfig["s3"], client: S3Client = createS3Client(cfg)) {
    if (!cfg.bucket) throw new Error("S3_BUCKET is required when SIEVE_STORAGE_DRIVER=s3");
    this.#client = client;
    this.#bucket = cfg.bucket;
    const prefix = cfg.prefix.replace(/^\/+|\/+$/g, "");
    this.#prefix = prefix ? `${prefix}/` : "";
  }

  async put(key: string, body: PutBody, opts: PutOptions = {}): Promise<PutResult> {
    const source = toReadable(body);
    const meter = new HashingMeter(opts.maxBytes);
    // A failing source or the size cap destroys `meter` with that error, which fails the upload;
    // lib-storage then aborts the multipart upload, so nothing becomes visible. Stream errors are
    // read from `meter.errored` below, hence the swallowed rejection here.
    const piping = pipeline(source, meter).catch(() => undefined);
    try {
      const upload = new Upload({
        client: this.#client,
        params: {
          Bucket: this.#bucket,
          Key: this.#objectKey(key),
          Body: meter,
          ContentType: opts.contentType ?? DEFAULT_CONTENT_TYPE,
        },
        partSize: UPLOAD_PART_BYTES,
        queueSize: UPLOAD_QUEUE_SIZE,
      });
      await upload.done();
      await piping;
      return meter.result();
    } catch (error) {
      // Prefer the stream's error (source failure, size cap): after a failed AbortMultipartUpload
      // the upload reports that failure instead of the root cause.
      const cause = meter.errored ?? error;
      meter.destroy(); // after upload failures, stop reading the source
      await piping;
      throw cause;
    }
  }

  async get(key: string, opts: GetOptions = {}): Promise<GetResult | null> {
    const { range } = opts;
    if (range) assertValidRange(range);
    let res: GetObjectCommandOutput;
    try {
      res = await this.#client.send(
        new GetObjectCommand({
          Bucket: this.#bucket,
          Key: this.#objectKey(key),
          Range: range ? `bytes=${range.start}-${range.end ?? ""}` : undefined,
        }),
      );
    } catch (error) {
      if (isNotFound(error)) return null;
      if (error instanceof S3ServiceException && error.name === "InvalidRange") {
        throw new RangeError(`Range start ${range?.start} is beyond the end of ${JSON.stringify(key)}`);
      }
      throw error;
    }
    if (!(res.Body instanceof Readable)) throw new Error("S3 GetObject returned no Node.js stream");
    const body = res.Body;
    const info = { contentType: res.ContentType, etag: res.ETag };
    if (!range) return { ...info, sizeInBytes: res.ContentLength ?? 0, body };

    const served = parseContentRange(res.ContentRange);
    if (!served) {
      body.destroy();
      throw new Error(`S3 ignored the Range request for ${JSON.stringify(key)} (no Content-Range)`);
    }
    return { ...info, sizeInBytes: served.total, range: { start: served.start, end: served.end }, body };
  }

  async head(key: string): Promise<ObjectInfo | null> {
    try {
      const res = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: this.#objectKey(key) }));
      return { sizeInBytes: res.ContentLength ?? 0, contentType: res.ContentType, etag: res.ETag };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    // S3 answers 204 for absent keys too.
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#objectKey(key) }));
  }

  async deletePrefix(prefix: string): Promise<number> {
    assertValidPrefix(prefix);
    let removed = 0;
    // Pages hold at most 1000 keys, which is exactly DeleteObjects' per-request limit.
    const pages = paginateListObjectsV2(
      { client: this.#client, pageSize: 1000 },
      { Bucket: this.#bucket, Prefix: this.#prefix + prefix },
    );
    for await (const page of pages) {
      const objects = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (objects.length === 0) continue;
      const res = await this.#client.send(
        new DeleteObjectsCommand({ Bucket: this.#bucket, Delete: { Objects: objects, Quiet: true } }),
      );
      const failed = res.Errors ?? [];
      if (failed.length > 0) {
        const first = failed[0];
        throw new Error(`S3 DeleteObjects failed for ${failed.length} key(s), e.g. ${first?.Key}: ${first?.Code}`);
      }
      removed += objects.length;
    }
    return removed;
  }

  async concat(targetKey: string, sourceKeys: readonly string[], opts?: PutOptions): Promise<PutResult> {
    sourceKeys.forEach(assertValidKey);
    return this.put(targetKey, readSequentially(this, sourceKeys), opts);
  }

  #objectKey(key: string): string {
    assertValidKey(key);
    return this.#prefix + key;
  }
}

function isNotFound(error: unknown): boolean {
  // HeadObject has no error body, so the SDK can only name it "NotFound".
  return error instanceof S3ServiceException && (error.name === "NoSuchKey" || error.name === "NotFound");
}

/** "bytes 0-9/100" → { start: 0, end: 9, total: 100 }. */
function parseContentRange(header: string | undefined): { start: number; end: number; total: number } | null {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header ?? "");
  if (!match) return null;
  return { start: Number(match[1]), end: Number(match[2]), total: Number(match[3]) };
}
