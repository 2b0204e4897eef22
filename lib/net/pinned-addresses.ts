import type { LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";

/**
 * Connections pinned to checked addresses (DNS rebinding): a socket is opened only to the
 * addresses a request's own resolution produced and the address policy allowed, never to what DNS
 * answers a moment later.
 */

/**
 * The key of a connection pool: the origin with the sorted set of its checked addresses. A pool's
 * sockets were all connected to addresses of its key's set, so a socket is only reused for a request
 * whose own resolution, checked in full, produced the same set; a host that now resolves elsewhere
 * gets another pool (or is refused before any pool is chosen).
 */
export function pinnedPoolKey(url: URL, host: string, addresses: readonly LookupAddress[]): string {
  const sorted = addresses.map((a) => `${a.family}/${a.address}`).sort();
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  return `${url.protocol}//${host}:${port} ${sorted.join(",")}`;
}

/** A lookup that answers with the checked addresses only. */
export function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  const first = addresses[0]!;
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [...addresses]);
    else callback(null, first.address, first.family);
  };
}
