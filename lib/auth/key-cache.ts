import type { AuthenticatedKey } from "@/lib/auth/types";
import { processSingleton } from "@/lib/core/singleton";
import { NotifiedCache } from "@/lib/db/notified-cache";

/**
 * Authenticated API keys, cached per process so most requests skip the key lookup. Correctness
 * comes from PostgreSQL: triggers NOTIFY `sieve_api_keys` on every key change (revocation, expiry,
 * permissions, deletion) and owner change, with the key hash as payload ("*" or empty: all keys),
 * and a NotifiedCache LISTENs: nothing is cached while its connection is down, a lookup that raced
 * a notification is not cached (generation check), entries expire after a TTL as a last safety
 * net, and a cached key is not returned once its own expiresAt has passed.
 */
const CHANNEL = "sieve_api_keys";
const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

class KeyCache {
  private readonly cache = new NotifiedCache<AuthenticatedKey>({
    channel: CHANNEL,
    ttlMs: TTL_MS,
    maxEntries: MAX_ENTRIES,
    keysOf: (hash) => (hash === "" ? "*" : [hash]),
  });

  /** A cached key, if still valid; also makes sure the listener runs. */
  get(hash: string, now = Date.now()): AuthenticatedKey | undefined {
    return this.cache.get(hash, now)?.value;
  }

  /** Taken before a lookup; `set` ignores results of lookups that a notification overtook. */
  currentGeneration(): number {
    return this.cache.currentGeneration();
  }

  set(hash: string, key: AuthenticatedKey, keyExpiresAt: Date | null, generation: number): void {
    this.cache.set(hash, key, generation, keyExpiresAt?.getTime() ?? null);
  }

  /**
   * Forgets a key in this process now (a revocation made here): the trigger's NOTIFY reaches the
   * other processes, but this one must not answer even one more request from its cache.
   */
  forget(hash: string): void {
    this.cache.invalidate(hash);
  }
}

export function keyCache(): KeyCache {
  return processSingleton("keyCache", () => new KeyCache());
}
