import { config } from "@/lib/core/config";
import type { ApiError } from "@/lib/core/errors";
import { processSingleton } from "@/lib/core/singleton";
import { notServable } from "@/lib/cdn/access";
import type { CdnAsset } from "@/lib/cdn/asset-state";
import { derivedBytes, type CachedBytes } from "@/lib/cdn/derived-cache";
import { transformImage } from "@/lib/cdn/transform";
import { transformSlotFree, withTransformSlot } from "@/lib/cdn/transform-slots";
import type { ImageTransformStep } from "@/lib/cdn/types";
import { readObject } from "@/lib/storage";

/**
 * Making a derived image (a transform or a lens output) from plain data, so that a CDN serving
 * process (lib/server/cdn-processes.ts) can hand the work to the main process: there one transform
 * runs per key however many processes ask at once, its memory stays under one process's transform
 * slots, and its stored copy is written once. Serving processes keep what they receive in their own
 * memory cache, so a hit never leaves the process that answers it.
 */
export interface DerivedJob {
  /** The memory-cache key (variant.ts). */
  key: string;
  assetId: string;
  /** Where the derived copy persists. */
  storageKey: string;
  steps: ImageTransformStep[];
  source: { storageKey: string; memoKey: string; contentType: string };
  /** Decides the error when the stored source is missing (404 private, 403 public). */
  visibility: CdnAsset["visibility"];
}

type Delegate = (job: DerivedJob) => Promise<CachedBytes>;

const delegation = () => processSingleton<{ to: Delegate | null }>("cdn-derived-delegate", () => ({ to: null }));

/** In a serving process: misses of the memory cache are made by `to` (the main process). */
export function delegateDerivedImages(to: Delegate): void {
  delegation().to = to;
}

/** The derived bytes: this process's memory, else made here (or by the process work is delegated to). */
export function derivedImage(job: DerivedJob): Promise<CachedBytes> {
  const to = delegation().to;
  if (to) return derivedBytes({ key: job.key, assetId: job.assetId, produce: () => to(job) });
  return makeDerivedImage(job);
}

/** Memory, else the stored derived copy, else transformed once for all concurrent callers. */
export function makeDerivedImage(job: DerivedJob): Promise<CachedBytes> {
  // The source is kept in the memory LRU like a small stored file (same key): a page asking for
  // several widths of one image reads it once, and concurrent cold transforms share one copy.
  let input: Promise<CachedBytes> | undefined;
  const readInput = () =>
    (input ??= derivedBytes({ key: job.source.memoKey, assetId: job.assetId, produce: () => readWhole(job, job.source.storageKey, job.source.contentType) }));
  return derivedBytes({
    key: job.key,
    assetId: job.assetId,
    storageKey: job.storageKey,
    // While storage is asked for a stored copy, the source is read already — when a transform
    // slot is free (under load, sources are read inside the slots, which bounds memory).
    warm: () => {
      if (transformSlotFree()) readInput().catch(() => undefined);
    },
    produce: () =>
      withTransformSlot(async () => {
        const image = await transformImage((await readInput()).data, job.steps, { maxInputPixels: config().cdn.maxTransformInputPixels });
        return { data: image.data, contentType: image.contentType };
      }),
  });
}

/** A stored file's bytes; missing ones make the asset unavailable (the record says they are there). */
export async function readWhole(asset: Pick<CdnAsset, "visibility">, key: string, contentType: string): Promise<CachedBytes> {
  const data = await readObject(key);
  if (!data) throw contentUnavailable(asset);
  return { data, contentType };
}

/** The record says the content is there but storage has none: unavailable stored content. */
export function contentUnavailable(asset: Pick<CdnAsset, "visibility">): ApiError {
  return notServable(asset, "its stored content is missing");
}
