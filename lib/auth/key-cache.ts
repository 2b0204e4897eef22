import pg from "pg";
import type { AuthenticatedKey } from "@/lib/auth/api-keys";

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
  private listening = false;
  private connecting = false;
  private generation = 0;

  /** A cached key, if still valid; also makes sure the listener runs. */
  get(hash: string, now = Date.now()): AuthenticatedKey | undefined {
    this.ensureListening();
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

  private ensureListening() {
    if (this.listening || this.connecting || !process.env.DATABASE_URL) return;
    this.connecting = true;
    const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
    const down = () => {
      if (!this.listening && !this.connecting) return;
      this.listening = false;
      this.connecting = false;
      this.forget("*");
      client.removeAllListeners();
      client.end().catch(() => undefined);
      setTimeout(() => this.ensureListening(), RECONNECT_MS).unref();
    };
    client.on("notification", (message) => {
      if (message.channel === CHANNEL) this.forget(message.payload || "*");
    });
    client.on("error", down);
    client.on("end", down);
    client
      .connect()
      .then(() => client.query(`LISTEN ${CHANNEL}`))
      .then(() => {
        // The listener must not keep a CLI or test process alive on its own.
        (client as unknown as { connection?: { stream?: { unref?: () => void } } }).connection?.stream?.unref?.();
        this.connecting = false;
        this.listening = true;
      })
      .catch(down);
  }
}

const KEY = Symbol.for("sieve.keyCache");
const store = globalThis as unknown as { [KEY]?: KeyCache };

export function keyCache(): KeyCache {
  store[KEY] ??= new KeyCache();
  return store[KEY];
}
