import ipaddr from "ipaddr.js";

/**
 * Which IP addresses outbound fetches (remote-URL assets, webhooks, captures) may connect to.
 *
 * Deny by default: only ipaddr.js's "unicast" range is allowed, i.e. public addresses. Everything
 * ipaddr names (loopback, private, link-local, CGNAT, unique-local, multicast, broadcast, reserved,
 * benchmarking, 6to4, Teredo, ...) is refused. Addresses that embed an IPv4 address (IPv4-mapped
 * `::ffff:a.b.c.d`, IPv4-translated `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`) are judged by the
 * embedded IPv4 address, because that is where the packets end up.
 */

/** Ranges an operator may open with `SIEVE_ALLOW_PRIVATE_NETWORKS` (internal services, dev setups). */
const PRIVATE_RANGES: ReadonlySet<string> = new Set([
  "private",
  "loopback",
  "linkLocal",
  "carrierGradeNat",
  "uniqueLocal",
]);

const LABELS: Record<string, string> = {
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "carrier-grade NAT (100.64.0.0/10)",
  private: "private network",
  reserved: "reserved",
  as112: "AS112 (reserved)",
  amt: "AMT (reserved)",
  benchmarking: "benchmarking (reserved)",
  uniqueLocal: "unique-local (fc00::/7)",
  deprecatedSiteLocal: "site-local (fec0::/10)",
  discard: "discard-only (100::/64)",
  rfc6052: "local-use NAT64 (64:ff9b:1::/48)",
  "6to4": "6to4 (2002::/16)",
  teredo: "Teredo (2001::/32)",
  as112v6: "AS112 (reserved)",
  deprecatedOrchid: "ORCHID (reserved)",
  orchid2: "ORCHIDv2 (reserved)",
  droneRemoteIdProtocolEntityTags: "DRIP (reserved)",
  segmentRouting: "segment-routing SID (reserved)",
  ipv4Compatible: "IPv4-compatible IPv6 (deprecated)",
  unallocated: "unallocated IPv6 (outside 2000::/3)",
  invalid: "invalid",
};

export interface AddressClassification {
  /** ipaddr.js range name ("unicast" = public), or ours: "ipv4Compatible", "unallocated", "invalid". */
  range: string;
  /** Canonical form of the address that was judged (the embedded IPv4 address when there is one). */
  effective: string;
  /** How the judged IPv4 address was embedded, e.g. "IPv4-mapped"; absent for plain addresses. */
  embedding?: string;
}

export type AddressVerdict =
  | { allowed: true; address: string; range: string }
  | {
      allowed: false;
      address: string;
      range: string;
      /** What kind of address it is, without the address, e.g. "IPv4-mapped loopback". */
      label: string;
      /** Full sentence naming the address, e.g. "::ffff:7f00:1 (IPv4-mapped 127.0.0.1) is a loopback address". */
      reason: string;
    };

/** Decides whether one resolved address may be connected to. Injectable for tests. */
export type AddressChecker = (address: string, allowPrivateNetworks: boolean) => AddressVerdict;

const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR("64:ff9b::/96");
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR("2000::/3");
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR("::/96");

/**
 * RFC 5952 hex form via the WHATWG URL parser. ipaddr.js misreads a dotted tail it does not expect
 * (`::8.8.8.8` comes back as `::ffff:8.8.8.8`), so it only ever sees the all-hex form.
 */
function canonicalIPv6(text: string): string | null {
  if (!text.includes(":")) return null;
  try {
    return new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
}

function lastIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 {
  const hi = v6.parts[6] ?? 0;
  const lo = v6.parts[7] ?? 0;
  return new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
}

function embedded(v4: ipaddr.IPv4, embedding: string): AddressClassification {
  return { range: v4.range(), effective: v4.toString(), embedding };
}

/**
 * Classifies a textual IP address (as returned by dns.lookup or a bracket-less URL host). Only
 * strict forms are accepted: the WHATWG URL parser has already turned `2130706433` or `0x7f.1`
 * into `127.0.0.1`, and DNS never returns such forms, so anything else is "invalid".
 */
export function classifyAddress(address: string): AddressClassification {
  const text = address.replace(/%.*$/, ""); // zone id (fe80::1%eth0) does not change the range
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) parsed = ipaddr.IPv4.parse(text);
  else {
    const hex = canonicalIPv6(text);
    if (hex === null || !ipaddr.IPv6.isValid(hex)) return { range: "invalid", effective: address };
    parsed = ipaddr.IPv6.parse(hex);
  }

  if (parsed.kind() === "ipv4") return { range: parsed.range(), effective: parsed.toString() };

  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  switch (range) {
    case "ipv4Mapped":
      return embedded(v6.toIPv4Address(), "IPv4-mapped");
    case "rfc6145":
      return embedded(lastIPv4(v6), "IPv4-translated");
    case "rfc6052":
      // The well-known NAT64 prefix is what DNS64 hands out on IPv6-only networks: judge the IPv4
      // host behind it. The local-use prefix (64:ff9b:1::/48) has no fixed layout: refuse it.
      return v6.match(NAT64_WELL_KNOWN) ? embedded(lastIPv4(v6), "NAT64") : { range, effective: v6.toString() };
    case "unicast":
      // ipaddr calls every unlisted address unicast; only 2000::/3 is actually routable globally.
      if (v6.match(IPV4_COMPATIBLE)) return { range: "ipv4Compatible", effective: v6.toString() };
      if (!v6.match(GLOBAL_UNICAST)) return { range: "unallocated", effective: v6.toString() };
      return { range, effective: v6.toString() };
    default:
      return { range, effective: v6.toString() };
  }
}

/**
 * The default policy. Public unicast is always allowed; with `allowPrivateNetworks` also private,
 * loopback, link-local, CGNAT and unique-local. Unspecified (0.0.0.0/8, ::), multicast, broadcast
 * and reserved ranges stay denied even then: connecting to 0.0.0.0 reaches the local host on Linux
 * (imgproxy CVE-2025-24354), and an operator who means loopback can write 127.0.0.1.
 */
export const checkAddress: AddressChecker = (address, allowPrivateNetworks) => {
  const c = classifyAddress(address);
  if (c.range === "unicast" || (allowPrivateNetworks && PRIVATE_RANGES.has(c.range))) {
    return { allowed: true, address, range: c.range };
  }
  const label = LABELS[c.range] ?? c.range;
  const via = c.embedding ? ` (${c.embedding} ${c.effective})` : "";
  return {
    allowed: false,
    address,
    range: c.range,
    label: c.embedding ? `${c.embedding} ${label}` : label,
    reason: `${address}${via} is a ${label} address, which is not allowed`,
  };
};

/** The host of a URL without IPv6 brackets, and whether it is an IP literal (no DNS needed). */
export function hostLiteral(url: URL): { host: string; isIp: boolean } {
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  return { host, isIp: ipaddr.IPv4.isValidFourPartDecimal(host) || (host.includes(":") && ipaddr.IPv6.isValid(host)) };
}
