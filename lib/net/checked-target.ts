import dns from "node:dns/promises";
import type { LookupAddress } from "node:dns";
import { ApiError, errorMessage } from "@/lib/core/errors";
import type { AddressChecker } from "./address-policy";
import { hostLiteral } from "./address-policy";
import { fetchFailed } from "./limited-body";

/**
 * The SSRF checks every outgoing request to a user-supplied URL starts with (safe-fetch.ts for
 * remote assets and captures, webhook-post.ts for deliveries): a URL we may fetch at all, and the
 * checked addresses of its host, resolved in full, one bad address refusing the whole URL.
 */

/** Resolves a hostname to every address it has. Injectable for tests. */
export type Resolver = (hostname: string) => Promise<string[]>;

export const systemResolver: Resolver = async (hostname) => (await dns.lookup(hostname, { all: true })).map((a) => a.address);

/** Only http: and https:, no credentials, a host. */
export function parseTarget(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError("asset/url-not-allowed", "The URL is not a valid absolute URL.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ApiError("asset/url-not-allowed", `Only http and https URLs can be fetched, not ${url.protocol}.`);
  }
  if (url.username || url.password) {
    throw new ApiError("asset/url-not-allowed", "URLs with credentials (user:password@host) are not allowed.");
  }
  if (!url.hostname) throw new ApiError("asset/url-not-allowed", "The URL has no host.");
  return url;
}

/** Every address of the URL's host, each allowed by the address policy; throws otherwise. */
export async function resolveChecked(
  url: URL,
  allowPrivateNetworks: boolean,
  resolve: Resolver,
  check: AddressChecker,
): Promise<LookupAddress[]> {
  const { host, isIp } = hostLiteral(url);
  let addresses: string[];
  if (isIp) {
    addresses = [host];
  } else {
    try {
      addresses = await resolve(host);
    } catch (error) {
      throw fetchFailed(`the host ${host} could not be resolved (${errorCode(error)})`);
    }
    if (addresses.length === 0) throw fetchFailed(`the host ${host} has no addresses`);
  }
  for (const address of addresses) {
    const verdict = check(address, allowPrivateNetworks);
    if (verdict.allowed) continue;
    // For names, say what kind of address but not which one: the API must not become an oracle
    // for the internal DNS (db.internal -> 10.0.3.4). A literal is the caller's own input.
    const why = isIp ? verdict.reason : `it resolves to a ${verdict.label} address, which is not allowed`;
    throw new ApiError("asset/url-not-allowed", `Refusing to fetch ${url.hostname}: ${why}.`);
  }
  return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
}


/** An error's system code (ECONNRESET, ENOTFOUND, ...), else its message. */
export function errorCode(error: unknown): string {
  if (error && typeof error === "object" && "code" in error && typeof error.code === "string") return error.code;
  return errorMessage(error);
}
