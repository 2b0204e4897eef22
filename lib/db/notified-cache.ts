import { listen, type Listener } from "@/lib/db/listen";

/**
 * A per-process cache of database facts kept correct by PostgreSQL: triggers NOTIFY `channel` on
 * every change, a dedicated connection LISTENs, and each payload names the keys to forget. Nothing
 * is cached while that connection is down (notifications sent meanwhile are lost), a lookup that a
 * notification overtook is not cached (generation check), and entries expire after `ttlMs` as a
 * last safety net, or earlier at their own `expiresAt` (a fact known to stop holding then).
 */
export interface NotifiedCacheOptions<M = string> {
  channel: string;
  ttlMs: number;
  maxEntries: number;
  /** Reads a payload once for keysOf and onNotification; null (unreadable) forgets everything. Default: the payload itself. */
  parse?(payload: string): M | null;
  /** The cache keys a notification invalidates, or "*" for all. */
  keysOf(message: M): string[] | "*";
  /** Runs for every notification (and with "*" when the connection drops or a payload is unreadable). */
  onNotification?(message: M | "*"): void;
}

interface Entry<V> {
  value: V;
  cachedAt: number;
  /** Epoch ms from which the entry is no longer returned, or null. */
  expiresAt: number | null;
}

const RECONNECT_MS = 1_000;

export class NotifiedCache<V, M = string> {
  private readonly entries = new Map<string, Entry<V>>();
  private listener: Listener | undefined;
  private generation = 0;

  constructor(private readonly options: NotifiedCacheOptions<M>) {}

  /** Starts listening (the first `get` does too). */
  start(): void {
    if (this.listener || !process.env.DATABASE_URL) return;
    this.listener = listen(this.options.channel, (payload) => this.forget(payload), {
      onDown: () => this.forget("*"),
      reconnectMs: RECONNECT_MS,
    });
  }

  listening(): boolean {
    return this.listener?.listening() ?? false;
  }

  /** The cached entry (its value may itself be a cached "absent"), or undefined on a miss. */
  get(key: string, now = Date.now()): { value: V } | undefined {
    this.start();
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (!this.listening() || now - entry.cachedAt > this.options.ttlMs || (entry.expiresAt !== null && entry.expiresAt <= now)) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** Taken before a lookup; `set` ignores results of lookups that a notification overtook. */
  currentGeneration(): number {
    return this.generation;
  }

  /** Caches `value` unless a notification came since `generation`; `expiresAt` (epoch ms) ends it before the TTL. */
  set(key: string, value: V, generation: number, expiresAt: number | null = null): void {
    if (!this.listening() || generation !== this.generation) return;
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, cachedAt: Date.now(), expiresAt });
  }

  /**
   * Forgets `key` in this process at once, as its notification would: for the process that made
   * the change, so its very next lookup does not depend on when the NOTIFY arrives.
   */
  invalidate(key: string): void {
    this.forget(key);
  }

  async close(): Promise<void> {
    await this.listener?.close();
    this.listener = undefined;
    this.entries.clear();
  }

  private forget(payload: string | "*"): void {
    this.generation++;
    const parsed = payload === "*" ? null : this.options.parse ? this.options.parse(payload) : (payload as M);
    const message: M | "*" = parsed ?? "*";
    const keys = message === "*" ? "*" : this.options.keysOf(message);
    if (keys === "*") this.entries.clear();
    else for (const key of keys) this.entries.delete(key);
    this.options.onNotification?.(message);
  }
}
