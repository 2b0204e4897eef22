import { createHash, type Hash } from "node:crypto";
import { Readable, Transform, type TransformCallback } from "node:stream";
import { ApiError } from "@/lib/core/errors";
import type { PutBody, PutResult, Storage } from "./types";

/**
 * Stream helpers shared by the backends' write path: a pass-through that hashes and meters the
 * bytes, body normalisation, and sequential concatenation of stored objects.
 */

/**
 * Pass-through that computes sha256 + md5 and counts bytes on the way to the backend, and fails
 * with ApiError "upload/too-large" as soon as more than `maxBytes` went through, so oversized
 * content is cut off mid-stream instead of being stored first and checked afterwards.
 */
export class HashingMeter extends Transform {
  readonly #sha256: Hash = createHash("sha256");
  readonly #md5: Hash = createHash("md5");
  #size = 0;
  #result: PutResult | undefined;
  readonly #maxBytes: number;

  constructor(maxBytes = Number.POSITIVE_INFINITY) {
    super();
    this.#maxBytes = maxBytes;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#size += chunk.length;
    if (this.#size > this.#maxBytes) {
      callback(new ApiError("upload/too-large"));
      return;
    }
    this.#sha256.update(chunk);
    this.#md5.update(chunk);
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.#result = {
      sizeInBytes: this.#size,
      sha256: this.#sha256.digest("hex"),
      md5: this.#md5.digest("hex"),
    };
    callback();
  }

  /** The digests; only available once all input went through. */
  result(): PutResult {
    if (!this.#result) throw new Error("HashingMeter.result() called before the stream ended");
    return this.#result;
  }
}

/** Digests of bytes already in memory, with the same size rule as HashingMeter. */
export function hashBuffer(bytes: Buffer, maxBytes = Number.POSITIVE_INFINITY): PutResult {
  if (bytes.length > maxBytes) throw new ApiError("upload/too-large");
  return {
    sizeInBytes: bytes.length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    md5: createHash("md5").update(bytes).digest("hex"),
  };
}

/** Buffers become a one-chunk stream (Readable.from would iterate a plain Uint8Array per byte). */
export function toReadable(body: PutBody): Readable {
  if (body instanceof Readable) return body;
  const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return Readable.from([buffer]);
}

/**
 * One stream over several stored objects, opened one at a time so only one source is ever open.
 * A missing source makes the stream fail, which makes the put it feeds leave nothing behind.
 */
export function readSequentially(storage: Pick<Storage, "get">, keys: readonly string[]): Readable {
  async function* chunks(): AsyncGenerator<Buffer> {
    for (const key of keys) {
      const object = await storage.get(key);
      if (!object) throw new Error(`concat: source object ${JSON.stringify(key)} does not exist`);
      for await (const chunk of object.body) yield chunk as Buffer;
    }
  }
  return Readable.from(chunks());
}
