import { ApiError } from "@/lib/core/errors";
import { checkAddress, hostLiteral } from "@/lib/net/address-policy";

/** Longest connector URL accepted. */
export const MAX_CONNECTOR_URL_LENGTH = 2048;

/**
 * What is wrong with a connector URL's form (a 400 validation failure), or null: only absolute
 * http: and https: URLs without credentials (`user:pass@`) are accepted. The URL was already
 * parsed once by the schema, so an unparsable value only reaches here from other callers.
 */
export function connectorUrlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an http: or https: URL";
  if (url.username !== "" || url.password !== "") return "must not contain credentials (user:password@)";
  if (url.hostname === "") return "must name a host";
  return null;
}

/** `localhost`, `*.localhost` (RFC 6761: always the loopback interface), with or without a final dot. */
function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/**
 * Refuses (422 `connector/url-not-allowed`) a URL whose host is a literal address outside the
 * public internet (loopback, private, link-local, …; lib/net/address-policy.ts decides) or a
 * localhost name, unless the operator opened private networks. Host names are not resolved here:
 * the delivery side resolves and checks every address again when it connects, so a name that
 * resolves to a private address is refused then (DNS can change between now and then anyway).
 */
export function assertConnectorUrlAllowed(raw: string, allowPrivateNetworks: boolean): void {
  const url = new URL(raw);
  const { host, isIp } = hostLiteral(url);
  if (isIp) {
    const verdict = checkAddress(host, allowPrivateNetworks);
    if (!verdict.allowed) throw new ApiError("connector/url-not-allowed", `The connector URL is not allowed: ${verdict.reason}.`);
    return;
  }
  if (!allowPrivateNetworks && isLocalhostName(host)) {
    throw new ApiError("connector/url-not-allowed", `The connector URL is not allowed: ${host} is the local host.`);
  }
}
