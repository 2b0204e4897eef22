import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { isApiError } from "@/lib/core/errors";
import { withTimeout } from "@/lib/core/timeout";
import { checkAddress, hostLiteral } from "./address-policy";
import { errorCode, parseTarget, resolveChecked, systemResolver, type Resolver } from "./checked-target";
import { keepAliveAgent, pinnedLookup } from "./keep-alive-agents";
import { fetchFailed } from "./limited-body";

/**
 * One POST of a webhook delivery: the same SSRF rules as safeFetch (checked-target.ts: http(s)
 * only, no credentials, every address of the host checked on every request, the socket pinned to
 * the checked addresses, keep-alive agents per checked address set), without what a delivery does
 * not need — no redirect is followed (a 3xx is the answer), no body stream: the first `excerptBytes`
 * of the answer are kept for the deliveries log and the rest is dropped. One deadline bounds the
 * whole request, from DNS to the excerpt. This is the hot path of every delivery, hence its own
 * lean function rather than safeFetch's general one.
 */
export interface WebhookPostOptions {
  allowPrivateNetworks: boolean;
  timeoutMs: number;
  excerptBytes: number;
  /** Injectable for tests. */
  resolve?: Resolver;
}

export interface WebhookAnswer {
  status: number;
  /** The Location header of a 3xx (not followed). */
  location: string | undefined;
  /** Up to `excerptBytes` of the body, as received. */
  excerpt: Buffer;
}

/** Throws ApiError asset/url-not-allowed (refused target) or asset/url-fetch-failed (no answer in time, connection failed). */
export async function postWebhook(rawUrl: string, body: Buffer, headers: Record<string, string>, options: WebhookPostOptions): Promise<WebhookAnswer> {
  const url = parseTarget(rawUrl);
  const deadline = Date.now() + options.timeoutMs;
  const late = `timed out after ${options.timeoutMs} ms without a complete response`;
  const timedOut = () => fetchFailed(late);
  const checking = resolveChecked(url, options.allowPrivateNetworks, options.resolve ?? systemResolver, checkAddress);
  // dns.lookup cannot be cancelled: a resolution past the deadline is given up on, not stopped.
  const addresses = hostLiteral(url).isIp
    ? await checking
    : await withTimeout(checking, options.timeoutMs, late).catch((error: unknown) => {
        throw isApiError(error) ? error : timedOut();
      });
  const { host } = hostLiteral(url);
  const request: http.RequestOptions = {
    protocol: url.protocol,
    hostname: host,
    port: url.port || undefined,
    path: `${url.pathname}${url.search}`,
    method: "POST",
    headers: { ...headers, "content-length": String(body.length), host: url.host },
    lookup: pinnedLookup(addresses),
    agent: keepAliveAgent(url, host, addresses),
  };
  const client = url.protocol === "https:" ? https : http;
  const attempt = (retryStaleSocket: boolean) =>
    new Promise<WebhookAnswer>((resolve, reject) => {
      let answered = false;
      const req = client.request(request);
      const timer = setTimeout(() => req.destroy(timedOut()), Math.max(0, deadline - Date.now()));
      const fail = (error: unknown) => {
        clearTimeout(timer);
        reject(isApiError(error) ? error : fetchFailed(`could not connect to ${url.host} (${errorCode(error)})`));
      };
      req.on("response", (res: IncomingMessage) => {
        answered = true;
        readExcerpt(res, options.excerptBytes, (excerpt) => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, location: res.headers.location, excerpt });
        });
      });
      req.on("error", (error) => {
        // A pooled socket the server closed just as we reused it: once more, on a new connection.
        if (retryStaleSocket && !answered && req.reusedSocket && isStaleSocketError(error)) {
          clearTimeout(timer);
          attempt(false).then(resolve, reject);
          return;
        }
        if (!answered) fail(error);
      });
      req.end(body);
    });
  return attempt(true);
}

/**
 * Collects up to `maxBytes` of a response and calls `done` once (at the end of the body, when
 * enough arrived, or when the body breaks off: the status stands). A body read to its end leaves the
 * socket to the keep-alive pool; one cut short closes it.
 */
function readExcerpt(res: IncomingMessage, maxBytes: number, done: (excerpt: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    done(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
  };
  res.on("data", (chunk: Buffer) => {
    if (finished) return;
    const room = maxBytes - size;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    chunks.push(kept);
    size += kept.length;
    if (size >= maxBytes) {
      finish();
      res.destroy();
    }
  });
  res.on("end", finish);
  res.on("error", finish);
  res.on("close", finish);
}

function isStaleSocketError(error: unknown): boolean {
  const code = errorCode(error);
  return code === "ECONNRESET" || code === "EPIPE";
}
