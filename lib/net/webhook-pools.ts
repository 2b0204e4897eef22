import type { LookupAddress } from "node:dns";
import { Pool } from "undici";
import { lruAdd, lruGet } from "@/lib/core/lru";
import { processSingleton } from "@/lib/core/singleton";
import { pinnedLookup } from "./keep-alive-agents";

/**
 * Connection pools of webhook deliveries (undici: a request costs about half the CPU of node:http's
 * client, which caps the delivery rate), one per origin and sorted set of checked addresses (the
 * agent key of keep-alive-agents.ts), with the same guarantee: a pool's sockets were all connected
 * to addresses of its key's set (its lookup answers with exactly those), so a socket is only reused
 * for a request whose own resolution, checked in full, produced the same set.
 *
 * Bounded like the agents: at most MAX_POOLS (least recently used closed), MAX_SOCKETS connections
 * each; idle sockets close after IDLE_MS (undici also honours a server's Keep-Alive hint, less a
 * margin). No connect timeout of undici's own: the caller's deadline bounds the whole request.
 */
const MAX_POOLS = 256;
const MAX_SOCKETS = 16;
const IDLE_MS = 4000;

const pools = () => processSingleton("webhookPostPools", () => new Map<string, Pool>());

/** The pool for `key` (agentKey of these addresses of `origin`), created on first use. */
export function webhookPool(key: string, origin: string, addresses: readonly LookupAddress[], isIp: boolean): Pool {
  const cached = lruGet(pools(), key);
  if (cached) return cached;
  const pool = new Pool(origin, {
    connections: MAX_SOCKETS,
    keepAliveTimeout: IDLE_MS,
    keepAliveMaxTimeout: IDLE_MS,
    headersTimeout: 0,
    bodyTimeout: 0,
    // An IP literal needs no lookup; a name connects only to its checked addresses.
    connect: isIp ? { timeout: 0 } : { timeout: 0, lookup: pinnedLookup(addresses) },
  });
  // Requests in flight on an evicted pool complete first.
  lruAdd(pools(), key, pool, MAX_POOLS, (oldest) => void oldest.close().catch(() => undefined));
  return pool;
}

/** Test hook: closes every pool at once. */
export async function closeWebhookPools(): Promise<void> {
  const all = [...pools().values()];
  pools().clear();
  await Promise.all(all.map((pool) => pool.destroy().catch(() => undefined)));
}
