import { config } from "@/lib/core/config";
import { processSingleton } from "@/lib/core/singleton";
import { fileTypeFromBuffer } from "file-type";
import { contentTypeOf } from "@/lib/cdn/transform";
import { IMAGE_FORMATS } from "@/lib/cdn/types";
import { readObject, storage } from "@/lib/storage";

/**
 * Derived bytes (transforms, lens outputs, small originals and previews) in a bounded in-memory
 * LRU, backed by storage for derived copies so a restart does not transform everything again.
 * A burst of identical cold requests shares one production (single flight). Entries belong to an
 * asset so its entries go at once when the asset changes; every request checks the asset's state
 * before it reaches this cache, so an entry is never served for a blocked asset.
 */
export interface CachedBytes {
  data: Buffer;
  contentType: string;
}

interface Entry extends CachedBytes {
  assetId: string;
}

class MemoryLru {
  private readonly entries = new Map<string, Entry>();
  private readonly byAsset = new Map<string, Set<string>>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Map order is the recency order: move to the end.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry;
  }

  set(key: string, entry: Entry): void {
    // One entry may take at most an eighth of the budget, so a few large files cannot flush the rest.
    if (entry.data.length > this.maxBytes / 8) return;
    this.delete(key);
    this.entries.set(key, entry);
    this.bytes += entry.data.length;
    let keys = this.byAsset.get(entry.assetId);
    if (!keys) this.byAsset.set(entry.assetId, (keys = new Set()));
    keys.add(key);
    while (this.bytes > this.maxBytes) this.delete(this.entries.keys().next().value as string);
  }

  dropAsset(assetId: string | "*"): void {
    if (assetId === "*") {
      this.entries.clear();
      this.byAsset.clear();
      this.bytes = 0;
      return;
    }
    for (const key of this.byAsset.get(assetId) ?? []) this.delete(key);
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.data.length;
    const keys = this.byAsset.get(entry.assetId);
    keys?.delete(key);
    if (keys?.size === 0) this.byAsset.delete(entry.assetId);
  }
}

interface CacheState {
  memory: MemoryLru;
  inFlight: Map<string, Promise<CachedBytes>>;
  /** Derived copies being written, per asset: deleting an asset's copies waits for them first. */
  persisting: Map<string, Set<Promise<void>>>;
}

function state(): CacheState {
  return processSingleton("cdn-derived-cache", () => ({ memory: new MemoryLru(config().cdn.memoryCacheBytes), inFlight: new Map(), persisting: new Map() }));
}

/** Resolves once this process has finished writing the asset's derived copies (so a deletion after it is final). */
export async function persistedCopies(assetId: string): Promise<void> {
  await Promise.all(state().persisting.get(assetId) ?? []);
}

export function memoryCache(): MemoryLru {
  return state().memory;
}

/** Bytes from memory, if there. */
export function cachedBytes(key: string): CachedBytes | undefined {
  return state().memory.get(key);
}

export interface DerivedSource {
  key: string;
  assetId: string;
  /** Where a derived copy persists; undefined for bytes that are only memoized (originals, previews). */
  storageKey?: string;
  /** Called when the bytes are not in memory, alongside the look for a stored copy (e.g. to start reading the source). */
  warm?(): void;
  produce(): Promise<CachedBytes>;
}

/** The bytes for `key`: memory, else storage, else produced once for all concurrent callers. */
export function derivedBytes(source: DerivedSource): Promise<CachedBytes> {
  const { memory, inFlight } = state();
  const hit = memory.get(source.key);
  if (hit) return Promise.resolve(hit);
  let pending = inFlight.get(source.key);
  if (!pending) {
    pending = load(source).finally(() => inFlight.delete(source.key));
    inFlight.set(source.key, pending);
  }
  return pending;
}

async function load(source: DerivedSource): Promise<CachedBytes> {
  source.warm?.();
  const stored = source.storageKey ? await readStored(source.storageKey) : null;
  const bytes = stored ?? (await source.produce());
  state().memory.set(source.key, { ...bytes, assetId: source.assetId });
  if (!stored && source.storageKey) persist(source.assetId, source.storageKey, bytes);
  return bytes;
}

/** Persisting is an optimisation: the response does not wait for it, and a failure costs a re-transform. */
function persist(assetId: string, key: string, bytes: CachedBytes): void {
  const { persisting } = state();
  let writes = persisting.get(assetId);
  if (!writes) persisting.set(assetId, (writes = new Set()));
  const write: Promise<void> = storage()
    // A lost copy is made again: no fsync competing with the transforms for the thread pool.
    .put(key, bytes.data, { contentType: bytes.contentType, durable: false })
    .then(
      () => undefined,
      (error: Error) => console.warn(`[cdn] could not store derived copy ${key}: ${error.message}`),
    )
    .finally(() => {
      writes.delete(write);
      if (writes.size === 0) persisting.delete(assetId);
    });
  writes.add(write);
}

/**
 * A stored derived copy, its content type read from its bytes (the fs backend keeps none); null when
 * absent, unreadable, or not an image this cache writes.
 */
async function readStored(key: string): Promise<CachedBytes | null> {
  const data = await readObject(key).catch(() => null);
  if (!data) return null;
  const type = await fileTypeFromBuffer(data);
  return type && DERIVED_TYPES.has(type.mime) ? { data, contentType: type.mime } : null;
}

const DERIVED_TYPES: ReadonlySet<string> = new Set(IMAGE_FORMATS.map(contentTypeOf));
