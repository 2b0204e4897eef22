import { listen, type Listener } from "@/lib/db/listen";
import type { AuthenticatedKey } from "@/lib/auth/types";
import { processSingleton } from "@/lib/core/singleton";

/**
 * Authenticated API keys, cached per process so most requests skip the key lookup. Correctness
 * comes from PostgreSQL: triggers NOTIFY `sieve_api_keys` on every key change (revocation, expiry,
 * permissions, deletion) and owner change, and a dedicated connection LISTENs. Nothing is cached
 * while that connection is down, a lookup that raced a notification is not cached (generation
 * check), and entries expire after a TTL as a last safety net.
 */
const CHANNEL = "sieve_api_keys";
const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;
const RECONNECT_MS = 1_000;

interface Entry {
  key: AuthenticatedKey;
  keyExpiresAt: number | null;
  cachedAt: number;
}

class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private listener: Listener | undefined;
  private generation = 0;

  private get listening(): boolean {
    return this.listener?.listening() ?? false;
  }

  /** A cached key, if still valid; also makes sure the listener runs. */
  get(hash: string, now = Date.now()): AuthenticatedKey | undefined {
    if (!this.listener && process.env.DATABASE_URL) {
      this.listener = listen(CHANNEL, (payload) => this.forget(payload || "*"), { onDown: () => this.forget("*"), reconnectMs: RECONNECT_MS });
    }
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (!this.listening || now - entry.cachedAt > TTL_MS || (entry.keyExpiresAt !== null && entry.keyExpiresAt <= now)) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry.key;
  }

  /** Taken before a lookup; `set` ignores results of lookups that a notification overtook. */
  currentGeneration(): number {
    return this.generation;
  }

  set(hash: string, key: AuthenticatedKey, keyExpiresAt: Date | null, generation: number): void {
    if (!this.listening || generation !== this.generation) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(hash, { key, keyExpiresAt: keyExpiresAt?.getTime() ?? null, cachedAt: Date.now() });
  }

  private forget(hash: string | "*") {
    this.generation++;
    if (hash === "*") this.entries.clear();
    else this.entries.delete(hash);
  }
}

export function keyCache(): KeyCache {
  return processSingleton("keyCache", () => new KeyCache());
}
