import type { LookupAddress } from "node:dns";
import { Pool } from "undici";
import { singletonGetter } from "@/lib/core/singleton";
import { pinnedLookup } from "./pinned-addresses";

/**
 * Connection pools of webhook deliveries (undici: a request costs about half the CPU of node:http's
 * client, which caps the delivery rate), one per origin and sorted set of checked addresses
 * (pinnedPoolKey): a pool's sockets were all connected to addresses of its key's set (its lookup
 * answers with exactly those), so a socket is only reused for a request whose own resolution,
 * checked in full, produced the same set.
 *
 * Bounded: at most MAX_POOLS (least recently used closed), MAX_SOCKETS connections
 * each; idle sockets close after IDLE_MS (undici also honours a server's Keep-Alive hint, less a
 * margin). No connect timeout of undici's own: the caller's deadline bounds the whole request.
 */
const MAX_POOLS = 256;
const MAX_SOCKETS = 16;
const IDLE_MS = 4000;

/** The pools, least recently used first, and the key used last (its pool is already last: no reordering). */
interface Pools {
  byKey: Map<string, Pool>;
  newest: string | undefined;
}
const createPools = (): Pools => ({ byKey: new Map(), newest: undefined });
const pools = singletonGetter("webhookPostPools", createPools);

/** The pool for `key` (pinnedPoolKey of these addresses of `origin`), created on first use. */
export function webhookPool(key: string, origin: string, addresses: readonly LookupAddress[], isIp: boolean): Pool {
  const all = pools();
  const cache = all.byKey;
  const cached = cache.get(key);
  if (cached) {
    if (all.newest !== key) {
      cache.delete(key); // re-insert: the Map's order is the LRU order
      cache.set(key, cached);
      all.newest = key;
    }
    return cached;
  }
  const pool = new Pool(origin, {
    connections: MAX_SOCKETS,
    keepAliveTimeout: IDLE_MS,
    keepAliveMaxTimeout: IDLE_MS,
    headersTimeout: 0,
    bodyTimeout: 0,
    // An IP literal needs no lookup; a name connects only to its checked addresses.
    connect: isIp ? { timeout: 0 } : { timeout: 0, lookup: pinnedLookup(addresses) },
  });
  cache.set(key, pool);
  all.newest = key;
  if (cache.size > MAX_POOLS) {
    const [oldestKey, oldest] = cache.entries().next().value as [string, Pool];
    cache.delete(oldestKey);
    void oldest.close().catch(() => undefined); // requests in flight complete first
  }
  return pool;
}

/** Test hook: closes every pool at once. */
export async function closeWebhookPools(): Promise<void> {
  const all = pools();
  const open = [...all.byKey.values()];
  all.byKey.clear();
  all.newest = undefined;
  await Promise.all(open.map((pool) => pool.destroy().catch(() => undefined)));
}
