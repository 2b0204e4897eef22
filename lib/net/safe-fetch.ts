import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { LookupAddress } from "node:dns";
import type { Readable } from "node:stream";
import { ApiError, isApiError } from "@/lib/core/errors";
import { checkAddress, hostLiteral, type AddressChecker } from "./address-policy";
import { errorCode, parseTarget, resolveChecked, systemResolver, type Resolver } from "./checked-target";

export type { Resolver };
import { pinnedLookup } from "./pinned-addresses";
import { fetchFailed, LimitedBody } from "./limited-body";

/**
 * SSRF-safe HTTP(S) requests to user-supplied URLs: GET for remote-URL assets and captures, POST
 * for webhook deliveries.
 *
 * - Only http: and https:. URLs with credentials (`user:pass@host`) are refused: we would otherwise
 *   send Basic auth on the user's behalf and keep a secret in the asset's source URL and our logs,
 *   and `https://trusted.example@evil.example/` is a classic phishing/allow-list confusion.
 * - The host is resolved once per hop and EVERY address is checked (address-policy.ts); one bad
 *   address refuses the whole URL. The socket then connects only to those checked addresses (a
 *   custom `lookup`), so a DNS-rebinding second answer is never used. SNI, certificate check and
 *   Host header keep the original hostname.
 * - Redirects (301/302/303/307/308) are followed by hand, up to `maxRedirects`, each target
 *   re-parsed and re-checked; a URL seen twice is reported as a redirect loop. Authorization,
 *   Cookie and Proxy-Authorization headers are dropped when a redirect changes origin.
 * - Timeouts: `timeoutMs` bounds everything up to the final response's headers (DNS, connect, TLS,
 *   every redirect hop). After that the body has an idle deadline of `timeoutMs` between chunks
 *   (see LimitedBody) but no total deadline, so large slow-but-alive downloads can finish.
 * - Size: Content-Length above `maxBytes` fails before reading; the body stream fails with
 *   `upload/too-large` once more than `maxBytes` bytes arrive. We ask for `identity` encoding, so
 *   bytes counted are bytes stored.
 * - Status: a final status outside 2xx is an error, unless `acceptAnyStatus` asks for every final
 *   response. With it, a redirect that is not followed (past `maxRedirects`, so `maxRedirects: 0`
 *   never follows one) is returned as the response instead of failing with "too many redirects".
 * - Connections: a fresh one per hop, closed after the response (webhook deliveries, which keep
 *   connections, have their own client: webhook-post.ts).
 * - POST: `body` is sent with its Content-Length. A followed 307/308 repeats the method and body;
 *   301/302/303 continue as a GET without body (what browsers do). Webhooks follow no redirect.
 */

export interface SafeFetchOptions {
  allowPrivateNetworks: boolean;
  timeoutMs: number;
  maxRedirects: number;
  maxBytes: number;
  headers?: Record<string, string>;
  /** GET (the default) or POST. */
  method?: "GET" | "POST";
  /** The request body (POST). */
  body?: Buffer;
  /** Return any final status (non-2xx, and a redirect not followed) instead of throwing. */
  acceptAnyStatus?: boolean;
}

export interface SafeFetchResult {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  contentType: string | null;
  /** Errors with ApiError upload/too-large past maxBytes, url-fetch-failed on stall or reset. */
  body: Readable;
  contentLength: number | null;
}

export interface SafeFetchDeps {
  resolve: Resolver;
  checkAddress: AddressChecker;
}

export type SafeFetch = (url: string, opts: SafeFetchOptions) => Promise<SafeFetchResult>;

const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
const CREDENTIAL_HEADERS = ["authorization", "cookie", "proxy-authorization"];
const USER_AGENT = "Sieve/0.1 (remote fetch)";

export function createSafeFetch(deps: Partial<SafeFetchDeps> = {}): SafeFetch {
  const resolve = deps.resolve ?? systemResolver;
  const check = deps.checkAddress ?? checkAddress;

  return async function safeFetch(rawUrl, opts) {
    let url = parseTarget(rawUrl);
    let headers = baseHeaders(opts.headers);
    let request: OutgoingRequest = { method: opts.method ?? "GET", body: opts.body };
    const seen = new Set([url.href]);
    const controller = new AbortController();
    // Built when needed: an error's stack trace is a measurable cost on every webhook POST.
    let timeout: Error | undefined;
    const timedOut = () => (timeout ??= fetchFailed(`timed out after ${opts.timeoutMs} ms without a complete response`));
    const timer = setTimeout(() => controller.abort(timedOut()), opts.timeoutMs);

    try {
      for (let redirects = 0; ; redirects++) {
        const addresses = await raceAbort(resolveChecked(url, opts.allowPrivateNetworks, resolve, check), controller.signal);
        const res = await send(url, addresses, headers, request, controller.signal);
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        const returnRedirect = opts.acceptAnyStatus === true && redirects >= opts.maxRedirects;

        if (REDIRECT_STATUSES.has(status) && location && !returnRedirect) {
          res.destroy();
          if (redirects >= opts.maxRedirects) throw fetchFailed(`too many redirects (the limit is ${opts.maxRedirects})`);
          const next = parseRedirect(location, url);
          if (seen.has(next.href)) throw fetchFailed(`redirect loop at ${next.href}`);
          seen.add(next.href);
          if (next.origin !== url.origin) headers = withoutCredentials(headers);
          if (status !== 307 && status !== 308 && request.method !== "GET") {
            request = { method: "GET", body: undefined };
            headers = withoutBodyHeaders(headers);
          }
          url = next;
          continue;
        }
        if ((status < 200 || status > 299) && !opts.acceptAnyStatus) {
          res.destroy();
          throw fetchFailed(`the server answered HTTP ${status}`);
        }
        const contentLength = parseContentLength(res.headers["content-length"]);
        if (contentLength !== null && contentLength > opts.maxBytes) {
          res.destroy();
          throw new ApiError(
            "upload/too-large",
            `The remote content is ${contentLength} bytes; the limit is ${opts.maxBytes} bytes.`,
          );
        }
        return {
          url: url.href,
          status,
          headers: flattenHeaders(res.headers),
          contentType: res.headers["content-type"] ?? null,
          body: new LimitedBody(res, opts.maxBytes, opts.timeoutMs),
          contentLength,
        };
      }
    } catch (error) {
      if (controller.signal.aborted) throw timedOut();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The production instance: system DNS, default address policy. */
export const safeFetch: SafeFetch = createSafeFetch();

function parseRedirect(location: string, base: URL): URL {
  let next: string;
  try {
    next = new URL(location, base).href;
  } catch {
    throw fetchFailed(`the server redirected to an invalid URL (${location.slice(0, 200)})`);
  }
  return parseTarget(next);
}

interface OutgoingRequest {
  method: "GET" | "POST";
  body: Buffer | undefined;
}

function send(
  url: URL,
  addresses: LookupAddress[],
  headers: Record<string, string>,
  request: OutgoingRequest,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const { host } = hostLiteral(url);
  const client = url.protocol === "https:" ? https : http;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = client.request(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: request.method,
        headers: { ...headers, ...(request.body ? { "content-length": String(request.body.length) } : {}), host: url.host },
        // The pre-checked addresses go to the socket instead of asking DNS again (rebinding).
        lookup: pinnedLookup(addresses),
        agent: false,
        signal,
      },
      resolve,
    );
    req.on("error", (error) => reject(isApiError(error) ? error : fetchFailed(`could not connect to ${url.host} (${errorCode(error)})`)));
    req.end(request.body);
  });
}

/** A request that lost its body (a POST redirected to GET) must not describe one. */
function withoutBodyHeaders(headers: Record<string, string>): Record<string, string> {
  const copy = { ...headers };
  delete copy["content-type"];
  return copy;
}

function baseHeaders(extra: Record<string, string> | undefined): Record<string, string> {
  const headers: Record<string, string> = {
    "user-agent": USER_AGENT,
    accept: "*/*",
    "accept-encoding": "identity",
    connection: "close",
  };
  for (const [name, value] of Object.entries(extra ?? {})) {
    const key = name.toLowerCase();
    if (key !== "host" && key !== "connection" && key !== "content-length") headers[key] = value;
  }
  return headers;
}

function withoutCredentials(headers: Record<string, string>): Record<string, string> {
  const copy = { ...headers };
  for (const name of CREDENTIAL_HEADERS) delete copy[name];
  return copy;
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function parseContentLength(value: string | undefined): number | null {
  return value !== undefined && /^\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : null;
}

/** Rejects with the signal's reason when it aborts first (dns.lookup itself cannot be cancelled). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
