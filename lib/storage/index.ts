import { config } from "@/lib/core/config";
import { FsStorage } from "./fs";
import { S3Storage } from "./s3";
import type { Storage, StorageConfig } from "./types";
import { processSingleton } from "@/lib/core/singleton";

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
