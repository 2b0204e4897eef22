import http, { type ClientRequest, type IncomingMessage } from "node:http";
import https from "node:https";
import type { LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { isApiError } from "@/lib/core/errors";
import { processSingleton } from "@/lib/core/singleton";
import { withTimeout } from "@/lib/core/timeout";
import { checkAddress, hostLiteral } from "./address-policy";
import { errorCode, parseTarget, resolveChecked, systemResolver, type Resolver } from "./checked-target";
import { agentKey, keepAliveAgent, pinnedLookup } from "./keep-alive-agents";
import { fetchFailed } from "./limited-body";

/**
 * One POST of a webhook delivery: the same SSRF rules as safeFetch (checked-target.ts: http(s)
 * only, no credentials, every address of the host checked on every request, the socket pinned to
 * the checked addresses, keep-alive agents per checked address set), without what a delivery does
 * not need — no redirect is followed (a 3xx is the answer), no body stream: the first `excerptBytes`
 * of the answer are kept for the deliveries log and the rest is dropped. One deadline bounds the
 * whole request, from DNS to the excerpt. This is the hot path of every delivery, hence its own
 * lean function rather than safeFetch's general one: what depends on the URL alone is worked out
 * once per URL (preparedTarget), and a request creates no named closures (tsx's keepNames gives
 * each one a defineProperty call).
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

/** A webhook URL as its requests use it. */
interface Target {
  url: URL;
  host: string;
  isIp: boolean;
  client: typeof http | typeof https;
  path: string;
  /**
   * For an IP literal: its checked address, agent key and pinned lookup. The address policy's
   * verdict on an address depends on the address and the policy alone, so it is the same for every
   * request; a host name is resolved and checked again on every request instead.
   */
  literal: { addresses: LookupAddress[]; agentKey: string; lookup: LookupFunction } | null;
}

const MAX_TARGETS = 256;
const targets = () => processSingleton("webhookPostTargets", () => new Map<string, Target>());

/** The parsed (and, for an IP literal, checked) target of `rawUrl` under this policy; throws when refused. */
async function preparedTarget(rawUrl: string, allowPrivateNetworks: boolean, resolve: Resolver): Promise<Target> {
  const cacheKey = `${allowPrivateNetworks ? "private" : "public"} ${rawUrl}`;
  const cache = targets();
  const cached = cache.get(cacheKey);
  if (cached) return cached;
  const url = parseTarget(rawUrl);
  const { host, isIp } = hostLiteral(url);
  let literal: Target["literal"] = null;
  if (isIp) {
    const addresses = await resolveChecked(url, allowPrivateNetworks, resolve, checkAddress);
    literal = { addresses, agentKey: agentKey(url, host, addresses), lookup: pinnedLookup(addresses) };
  }
  const target: Target = { url, host, isIp, client: url.protocol === "https:" ? https : http, path: `${url.pathname}${url.search}`, literal };
  cache.set(cacheKey, target);
  if (cache.size > MAX_TARGETS) cache.delete(cache.keys().next().value as string);
  return target;
}

function timeoutError(timeoutMs: number) {
  return fetchFailed(`timed out after ${timeoutMs} ms without a complete response`);
}

/** Throws ApiError asset/url-not-allowed (refused target) or asset/url-fetch-failed (no answer in time, connection failed). */
export async function postWebhook(rawUrl: string, body: Buffer, headers: Record<string, string>, options: WebhookPostOptions): Promise<WebhookAnswer> {
  const deadline = Date.now() + options.timeoutMs;
  const resolve = options.resolve ?? systemResolver;
  const target = await preparedTarget(rawUrl, options.allowPrivateNetworks, resolve);
  const { url, host } = target;
  let addresses: LookupAddress[];
  let lookup: LookupFunction;
  let key: string;
  if (target.literal) {
    ({ addresses, lookup, agentKey: key } = target.literal);
  } else {
    // dns.lookup cannot be cancelled: a resolution past the deadline is given up on, not stopped.
    addresses = await withTimeout(resolveChecked(url, options.allowPrivateNetworks, resolve, checkAddress), options.timeoutMs).catch(
      (error: unknown) => {
        throw isApiError(error) ? error : timeoutError(options.timeoutMs);
      },
    );
    lookup = pinnedLookup(addresses);
    key = agentKey(url, host, addresses);
  }
  const request: http.RequestOptions = {
    protocol: url.protocol,
    hostname: host,
    port: url.port || undefined,
    path: target.path,
    method: "POST",
    headers: { ...headers, "content-length": String(body.length), host: url.host },
    lookup,
    agent: keepAliveAgent(url, host, addresses, key),
  };
  return new Promise<WebhookAnswer>((resolveAnswer, reject) => {
    send(new PostState(target, request, body, deadline, options, resolveAnswer, reject), true);
  });
}

/**
 * One request's progress, with the first `excerptBytes` of its answer (a class: its handlers are
 * shared methods, not closures made per request). It settles once: at the end of the body, when
 * enough arrived, or when the body breaks off (the status stands). A body read to its end leaves
 * the socket to the keep-alive pool; one cut short closes it.
 */
class PostState {
  answered = false;
  timer: NodeJS.Timeout | undefined;
  chunks: Buffer[] = [];
  size = 0;
  finished = false;
  constructor(
    readonly target: Target,
    readonly request: http.RequestOptions,
    readonly body: Buffer,
    readonly deadline: number,
    readonly options: WebhookPostOptions,
    readonly resolve: (answer: WebhookAnswer) => void,
    readonly reject: (error: unknown) => void,
  ) {}

  fail(error: unknown): void {
    clearTimeout(this.timer);
    this.reject(isApiError(error) ? error : fetchFailed(`could not connect to ${this.target.url.host} (${errorCode(error)})`));
  }

  read(res: IncomingMessage, chunk: Buffer): void {
    if (this.finished) return;
    const room = this.options.excerptBytes - this.size;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
    if (this.size >= this.options.excerptBytes) {
      this.finish(res);
      res.destroy();
    }
  }

  finish(res: IncomingMessage): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.timer);
    const excerpt = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.size);
    this.resolve({ status: res.statusCode ?? 0, location: res.headers.location, excerpt });
  }
}

function send(state: PostState, retryStaleSocket: boolean): void {
  const req: ClientRequest = state.target.client.request(state.request);
  state.timer = setTimeout(() => req.destroy(timeoutError(state.options.timeoutMs)), Math.max(0, state.deadline - Date.now()));
  req.on("response", (res: IncomingMessage) => {
    state.answered = true;
    res.on("data", (chunk: Buffer) => state.read(res, chunk));
    res.on("end", () => state.finish(res));
    res.on("error", () => state.finish(res));
    res.on("close", () => state.finish(res));
  });
  req.on("error", (error) => {
    // A pooled socket the server closed just as we reused it: once more, on a new connection.
    if (retryStaleSocket && !state.answered && req.reusedSocket && isStaleSocketError(error)) {
      clearTimeout(state.timer);
      send(state, false);
      return;
    }
    if (!state.answered) state.fail(error);
  });
  req.end(state.body);
}

function isStaleSocketError(error: unknown): boolean {
  const code = errorCode(error);
  return code === "ECONNRESET" || code === "EPIPE";
}
