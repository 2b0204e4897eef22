import crypto from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

/** The slice of s3rver's (untyped, CommonJS) API we use. */
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
}
type S3rverConstructor = new (options: {
  address: string;
  port: number;
  directory: string;
  silent: boolean;
  configureBuckets: { name: string }[];
}) => S3rverInstance;

const S3rver = createRequire(import.meta.url)("s3rver") as S3rverConstructor;

/**
 * s3rver 3.7.1 encrypts ListObjectsV2 continuation tokens with single DES, which OpenSSL 3
 * (Node >= 17) only has in its legacy provider; without it every truncated listing (> 1000 keys)
 * answers 500. Single DES equals 3DES with the key repeated three times, and 3DES is still in the
 * default provider, so "des" is rerouted to that. Only affects "des", which would throw anyway.
 */
function shimSingleDes(): void {
  try {
    crypto.createCipheriv("des", Buffer.alloc(8), Buffer.alloc(8));
    return; // legacy provider loaded (e.g. --openssl-legacy-provider): nothing to do
  } catch {
    // fall through
  }
  const tripled = (key: crypto.CipherKey) => Buffer.concat(Array(3).fill(Buffer.from(key as Uint8Array)));
  const { createCipheriv, createDecipheriv } = crypto;
  const patched = crypto as { createCipheriv: unknown; createDecipheriv: unknown };
  patched.createCipheriv = (algorithm: string, key: crypto.CipherKey, iv: crypto.BinaryLike | null) =>
    algorithm === "des" ? createCipheriv("des-ede3-cbc", tripled(key), iv) : createCipheriv(algorithm, key, iv);
  patched.createDecipheriv = (algorithm: string, key: crypto.CipherKey, iv: crypto.BinaryLike | null) =>
    algorithm === "des" ? createDecipheriv("des-ede3-cbc", tripled(key), iv) : createDecipheriv(algorithm, key, iv);
}

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** s3rver's built-in account. */
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
}

/** An in-process S3-compatible server on 127.0.0.1 (random port) with one empty bucket. */
export async function startLocalS3(bucket = "sieve-test"): Promise<LocalS3> {
  shimSingleDes();
  const directory = await mkdtemp(path.join(tmpdir(), "sieve-s3rver-"));
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    directory,
    silent: true,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    async stop() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
