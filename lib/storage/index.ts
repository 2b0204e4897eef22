import { config } from "@/lib/config";
import { FsStorage } from "./fs";
import { S3Storage } from "./s3";
import type { Storage, StorageConfig } from "./types";

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

// Cached on globalThis rather than in module scope: Next.js dev reloads re-evaluate modules, and
// each S3Client would otherwise keep its own socket pool alive.
const INSTANCE = Symbol.for("sieve.storage");
type WithStorage = typeof globalThis & { [INSTANCE]?: Storage };

/** The configured backend, created on first use. */
export function storage(): Storage {
  const g = globalThis as WithStorage;
  g[INSTANCE] ??= createStorage(config().storage);
  return g[INSTANCE];
}
