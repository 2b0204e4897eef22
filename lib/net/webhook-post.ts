import type { IncomingHttpHeaders } from "node:http";
import type { LookupAddress } from "node:dns";
import { isApiError } from "@/lib/core/errors";
import { singletonGetter } from "@/lib/core/singleton";
import { withTimeout } from "@/lib/core/timeout";
import { checkAddress, hostLiteral } from "./address-policy";
import { errorCode, parseTarget, resolveChecked, systemResolver, type Resolver } from "./checked-target";
import type { Dispatcher, Pool } from "undici";
import { pinnedPoolKey } from "./pinned-addresses";
import { webhookPool } from "./webhook-pools";
import { fetchFailed } from "./limited-body";
import { DeadlineList, type DeadlineItem } from "./deadline-list";

/**
 * One POST of a webhook delivery: the same SSRF rules as safeFetch (checked-target.ts: http(s)
 * only, no credentials, every address of the host checked on every request, the socket pinned to
 * the checked addresses, connection pools per checked address set: webhook-pools.ts), without what
 * a delivery does not need — no redirect is followed (a 3xx is the answer), no body stream: the
 * first `excerptBytes` of the answer are kept for the deliveries log and the rest is dropped. One
 * deadline bounds the whole request, from DNS to the excerpt. This is the hot path of every
 * delivery, hence its own lean function rather than safeFetch's general one: what depends on the
 * URL alone is worked out once per URL (preparedTarget), the request goes through undici's dispatch
 * (no streams), and a request creates no named closures (tsx's keepNames gives each one a
 * defineProperty call).
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

/**
 * Where a request's outcome goes (sendWebhookPost): exactly one call, `answered` or `failed` (with
 * the error postWebhook would reject with). A delivery's attempt object is its own sink, so a
 * request allocates no promise or closure of its own.
 */
export interface WebhookSink {
  answered(answer: WebhookAnswer): void;
  failed(error: unknown): void;
}

/** A webhook URL as its requests use it. */
interface Target {
  url: URL;
  host: string;
  isIp: boolean;
  path: string;
  /**
   * For an IP literal: its checked address and pool key. The address policy's
   * verdict on an address depends on the address and the policy alone, so it is the same for every
   * request; a host name is resolved and checked again on every request instead.
   */
  literal: { addresses: LookupAddress[]; poolKey: string } | null;
}

const MAX_TARGETS = 256;
/** Prepared targets by URL, one map per policy (a URL's string is then its key as it is: no key built per request). */
const targets = singletonGetter("webhookPostTargets", () => ({ private: new Map<string, Target>(), public: new Map<string, Target>() }));
const targetsUnder = (allowPrivateNetworks: boolean) => (allowPrivateNetworks ? targets().private : targets().public);

/** The parsed (and, for an IP literal, checked) target of `rawUrl` under this policy; throws when refused. */
async function preparedTarget(rawUrl: string, allowPrivateNetworks: boolean, resolve: Resolver): Promise<Target> {
  const url = parseTarget(rawUrl);
  const { host, isIp } = hostLiteral(url);
  let literal: Target["literal"] = null;
  if (isIp) {
    const addresses = await resolveChecked(url, allowPrivateNetworks, resolve, checkAddress);
    literal = { addresses, poolKey: pinnedPoolKey(url, host, addresses) };
  }
  const target: Target = { url, host, isIp, path: `${url.pathname}${url.search}`, literal };
  const cache = targetsUnder(allowPrivateNetworks);
  cache.set(rawUrl, target);
  if (cache.size > MAX_TARGETS) cache.delete(cache.keys().next().value as string);
  return target;
}

function timeoutError(timeoutMs: number) {
  return fetchFailed(`timed out after ${timeoutMs} ms without a complete response`);
}

/**
 * Rejects with ApiError asset/url-not-allowed (refused target) or asset/url-fetch-failed (no answer
 * in time, connection failed). `headers` are the request's headers in full.
 */
export function postWebhook(rawUrl: string, body: Buffer | string, headers: Record<string, string>, options: WebhookPostOptions): Promise<WebhookAnswer> {
  // Headers as a flat array (undici sets content-length and host itself).
  const raw: string[] = [];
  for (const name in headers) raw.push(name, headers[name] as string);
  return new Promise<WebhookAnswer>((resolve, reject) => sendWebhookPost(rawUrl, body, raw, options, { answered: resolve, failed: reject }));
}

/**
 * postWebhook with its outcome handed to `sink` and its headers a flat [name, value, ...] array
 * (the hot path of every delivery). A known IP-literal target (the common case) sends at once.
 */
export function sendWebhookPost(rawUrl: string, body: Buffer | string, headers: readonly string[], options: WebhookPostOptions, sink: WebhookSink): void {
  const deadline = Date.now() + options.timeoutMs;
  const target = targetsUnder(options.allowPrivateNetworks).get(rawUrl);
  if (target?.literal) {
    sendPost(target, target.literal.addresses, target.literal.poolKey, body, headers, deadline, options, sink);
    return;
  }
  resolvedPost(target, rawUrl, body, headers, deadline, options, sink).catch((error: unknown) => sink.failed(error));
}

/** A target seen for the first time or named by a host (resolved and checked on every request). */
async function resolvedPost(
  known: Target | undefined,
  rawUrl: string,
  body: Buffer | string,
  headers: readonly string[],
  deadline: number,
  options: WebhookPostOptions,
  sink: WebhookSink,
): Promise<void> {
  const resolve = options.resolve ?? systemResolver;
  const target = known ?? (await preparedTarget(rawUrl, options.allowPrivateNetworks, resolve));
  if (target.literal) return sendPost(target, target.literal.addresses, target.literal.poolKey, body, headers, deadline, options, sink);
  // dns.lookup cannot be cancelled: a resolution past the deadline is given up on, not stopped.
  const addresses = await withTimeout(resolveChecked(target.url, options.allowPrivateNetworks, resolve, checkAddress), options.timeoutMs).catch(
    (error: unknown) => {
      throw isApiError(error) ? error : timeoutError(options.timeoutMs);
    },
  );
  sendPost(target, addresses, pinnedPoolKey(target.url, target.host, addresses), body, headers, deadline, options, sink);
}

function sendPost(
  target: Target,
  addresses: LookupAddress[],
  key: string,
  body: Buffer | string,
  headers: readonly string[],
  deadline: number,
  options: WebhookPostOptions,
  sink: WebhookSink,
): void {
  const pool = webhookPool(key, target.url.origin, addresses, target.isIp);
  send(new PostState(target, pool, headers, body, deadline, options, sink), true);
}

/**
 * One request's progress (undici's dispatch handler: no response stream), with the first
 * `excerptBytes` of its answer. It settles once: at the end of the body, when enough arrived (the
 * connection is then dropped), or when the body breaks off (the status stands).
 */
class PostState implements Dispatcher.DispatchHandler, DeadlineItem {
  status = 0;
  location: string | undefined;
  deadlinePrev: DeadlineItem | null = null;
  deadlineNext: DeadlineItem | null = null;
  deadlineList: DeadlineList | null = null;
  controller: Dispatcher.DispatchController | undefined;
  chunks: Buffer[] = [];
  size = 0;
  settled = false;
  retryStaleSocket = false;
  constructor(
    readonly target: Target,
    readonly pool: Pool,
    readonly headers: readonly string[],
    readonly body: Buffer | string,
    readonly deadline: number,
    readonly options: WebhookPostOptions,
    readonly sink: WebhookSink,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.settled) controller.abort(timeoutError(this.options.timeoutMs));
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    this.status = statusCode;
    const location = headers.location;
    this.location = Array.isArray(location) ? location[0] : location;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.settled) return;
    const room = this.options.excerptBytes - this.size;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
    if (this.size >= this.options.excerptBytes) {
      this.finish();
      controller.abort(new Error("excerpt complete")); // the rest is not read: the connection goes
    }
  }

  onResponseEnd(): void {
    this.finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.settled) return;
    if (this.status !== 0) return this.finish(); // the body broke off: the status stands
    // A pooled socket the server closed just as we reused it: once more, on a new connection.
    if (this.retryStaleSocket && isStaleSocketError(error)) {
      this.retryStaleSocket = false;
      this.controller = undefined;
      send(this, false); // under the same deadline
      return;
    }
    this.settled = true;
    deadlines().remove(this);
    this.sink.failed(isApiError(error) ? error : fetchFailed(`could not connect to ${this.target.url.host} (${errorCode(error)})`));
  }

  finish(): void {
    if (this.settled) return;
    this.settled = true;
    deadlines().remove(this);
    const excerpt = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.size);
    this.sink.answered({ status: this.status, location: this.location, excerpt });
  }

  deadlinePassed(): void {
    if (this.settled) return;
    const error = timeoutError(this.options.timeoutMs);
    if (this.status !== 0) {
      this.finish(); // the headers are in, the body is late: the status stands
    } else {
      this.settled = true;
      this.sink.failed(error);
    }
    this.controller?.abort(error);
  }
}

/** The deadlines of every request in flight (deadline-list.ts). */
const deadlines = singletonGetter("webhookPostDeadlines", () => new DeadlineList());

function send(state: PostState, retryStaleSocket: boolean): void {
  state.retryStaleSocket = retryStaleSocket;
  if (!state.deadlineList) deadlines().add(state);
  state.pool.dispatch({ origin: state.target.url.origin, path: state.target.path, method: "POST", headers: state.headers as string[], body: state.body }, state);
}

function isStaleSocketError(error: unknown): boolean {
  const code = errorCode(error);
  return code === "ECONNRESET" || code === "EPIPE" || code === "UND_ERR_SOCKET";
}
