import { config } from "@/lib/core/config";
import { FsStorage } from "./fs";
import { S3Storage } from "./s3";
import type { Storage, StorageConfig } from "./types";
import { processSingleton } from "@/lib/core/singleton";
import { collectStream } from "@/lib/core/streams";

export type {
  ByteRange,
  GetOptions,
  GetResult,
  ObjectInfo,
  PutBody,
  PutOptions,
  PutResult,
  Storage,
  StorageConfig,
} from "./types";
export { DEFAULT_CONTENT_TYPE, assertValidKey } from "./types";

/** A backend for the given storage settings (tests build their own; the app uses storage()). */
export function createStorage(cfg: StorageConfig): Storage {
  return cfg.driver === "s3" ? new S3Storage(cfg.s3) : new FsStorage(cfg.fsRoot);
}

/** The configured backend, created on first use (one per process: each S3Client keeps a socket pool). */
export function storage(): Storage {
  return processSingleton("storage", () => createStorage(config().storage));
}

/** A whole object in memory, or null when absent (for objects known to be small enough to hold). */
export async function readObject(key: string): Promise<Buffer | null> {
  const object = await storage().get(key);
  if (!object) return null;
  return collectStream(object.body, Number.POSITIVE_INFINITY, () => new Error("unreachable"));
}
