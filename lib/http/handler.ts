import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { z } from "zod";
import { authenticateApiKey } from "@/lib/auth/api-keys";
import { assertPermission, assertProjectAccess } from "@/lib/auth/authorize";
import type { AuthenticatedKey } from "@/lib/auth/types";
import { config } from "@/lib/core/config";
import { readBodyCapped, parseJsonBody } from "@/lib/http/body";
import type { EndpointSpec, HttpMethod } from "@/lib/http/endpoint";
import { ApiError, isApiError } from "@/lib/core/errors";
import { HashingReader, nodeStream } from "@/lib/http/hashing-reader";
import {
  claimIdempotencyKey,
  fingerprint,
  replayOrRefuse,
  storeIdempotentResponse,
  validateIdempotencyKey,
} from "@/lib/http/idempotency";
import { checkPathParams } from "@/lib/http/params";
import { takeToken } from "@/lib/http/rate-limit";
import { errorResponse, jsonResponse, REQUEST_ID_HEADER } from "@/lib/http/respond";
import { parseOrThrow } from "@/lib/http/validation";

export interface RequestContext {
  requestId: string;
  request: Request;
  /** The authenticated key; absent only on endpoints declared with `auth: "none"`. */
  apiKey: AuthenticatedKey;
}

/** A streamed request body (raw-bytes endpoints). */
export interface RawBody {
  stream: Readable;
  contentType: string | null;
  contentLength: number | null;
}

type BodyOf<B> = B extends "raw" ? RawBody : B extends z.ZodType ? z.infer<B> : never;

export interface HandlerInput<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType | "raw"> {
  params: z.infer<P>;
  query: z.infer<Q>;
  body: BodyOf<B>;
  ctx: RequestContext;
}

/** What a handler returns: data to send as JSON with the declared status, or a full Response. */
export type HandlerResult = Response | object;

type RouteContext = { params: Promise<Record<string, string | string[] | undefined>> };
export type RouteHandler = (request: Request, context: RouteContext) => Promise<Response>;

/**
 * The one wrapper every API route uses. Order: request id → auth → path params and project access →
 * permission → rate limit → input parsing → idempotency → handler → error mapping.
 */
export function handle<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType | "raw">(
  spec: EndpointSpec<P, Q, B>,
  fn: (input: HandlerInput<P, Q, B>) => Promise<HandlerResult>,
): RouteHandler {
  const handler: RouteHandler = async (request, context) => {
    const requestId = request.headers.get("x-request-id") ?? randomUUID();
    try {
      const response = await run(spec, fn, request, context, requestId);
      response.headers.set(REQUEST_ID_HEADER, requestId);
      return response;
    } catch (error) {
      return toErrorResponse(error, requestId, spec.operationId);
    }
  };
  // Lets the OpenAPI coverage test tell real handlers from routes()' 405 fillers.
  Object.defineProperty(handler, "endpoint", { value: spec, enumerable: false });
  return handler;
}

/** The endpoint spec a route handler was built from with `handle()`; undefined for 405 fillers. */
export function endpointOf(handler: unknown): EndpointSpec | undefined {
  if (typeof handler !== "function") return undefined;
  return (handler as { endpoint?: EndpointSpec }).endpoint;
}

async function run<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType | "raw">(
  spec: EndpointSpec<P, Q, B>,
  fn: (input: HandlerInput<P, Q, B>) => Promise<HandlerResult>,
  request: Request,
  context: RouteContext,
  requestId: string,
): Promise<Response> {
  const rawParams = (await context?.params) ?? {};
  const apiKey = spec.auth === "apiKey" ? await authenticateApiKey(request.headers.get("x-api-key")) : null;
  const params = checkPathParams(rawParams);
  if (apiKey) {
    if (typeof params.projectId === "string") await assertProjectAccess(apiKey, params.projectId);
    assertPermission(apiKey, spec.permission);
    // A key's own limit replaces the server default; its burst is one second's worth.
    const own = apiKey.rateLimitPerSecond;
    takeToken(apiKey.id, own === null ? config().rateLimit : { perSecond: own, burst: own });
  }

  const url = new URL(request.url);
  const query = parseOrThrow(spec.query ?? NO_QUERY, Object.fromEntries(url.searchParams), "query");
  const ctx = { requestId, request, apiKey: apiKey as AuthenticatedKey };

  const idempotencyKey = spec.idempotent && apiKey ? request.headers.get("idempotency-key") : null;
  let body: unknown;
  let rawReader: HashingReader | null = null;
  let requestHash = "";
  if (spec.body === "raw") {
    // Hashed only when an Idempotency-Key needs the body's digest (storage hashes it anyway).
    rawReader = idempotencyKey !== null ? new HashingReader(request.body) : null;
    body = {
      stream: rawReader?.stream ?? nodeStream(request.body),
      contentType: request.headers.get("content-type"),
      contentLength: numberOrNull(request.headers.get("content-length")),
    } satisfies RawBody;
    if (idempotencyKey !== null) requestHash = fingerprint(spec.operationId, url.search, request.headers.get("content-type") ?? "");
  } else if (spec.body) {
    const raw = await readBodyCapped(request, spec.maxBodyBytes ?? config().limits.maxJsonBodyBytes);
    body = parseOrThrow(spec.body, parseJsonBody(raw), "body");
    if (idempotencyKey !== null) requestHash = fingerprint(spec.operationId, url.search, raw);
  }

  const input = { params, query, body, ctx } as HandlerInput<P, Q, B>;
  if (idempotencyKey === null || !apiKey) return respond(spec, await fn(input));

  const scope = { apiKeyId: apiKey.id, projectId: apiKey.projectId, route: spec.operationId, key: validateIdempotencyKey(idempotencyKey) };
  const claim = await claimIdempotencyKey(scope, requestHash);
  if (claim.kind === "stored") {
    if (rawReader) {
      // A raw body is identified by its digest, so a finished duplicate is read (not stored) first.
      if (claim.record.responseStatus === null) throw new ApiError("idempotency/request-in-progress");
      requestHash = `${requestHash}:${await rawReader.drain()}`;
    }
    return replayOrRefuse(claim.record, requestHash, requestId);
  }
  let response: Response;
  try {
    response = respond(spec, await fn(input));
  } catch (error) {
    response = toErrorResponse(error, requestId, spec.operationId);
  }
  const finalHash = rawReader ? `${requestHash}:${await rawReader.drain()}` : undefined;
  return storeIdempotentResponse(claim.recordId, response, finalHash);
}

/** Endpoints that declare no query parameters reject any (unknown parameters are refused everywhere). */
const NO_QUERY = z.strictObject({});

function respond(spec: EndpointSpec, result: HandlerResult): Response {
  if (result instanceof Response) return result;
  return jsonResponse(result, spec.response.status ?? 200, {});
}

function numberOrNull(value: string | null): number | null {
  if (value === null) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/** Failures that mean "the database cannot be reached right now" rather than a bug: 503, retryable. */
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", // network
  "57P01", "57P02", "57P03", "08000", "08001", "08003", "08006", // PostgreSQL: shutdown, connection failures
  "P1001", "P1002", "P1017", "P2024", // Prisma: unreachable, timed out, closed, pool timeout
]);

export function toErrorResponse(error: unknown, requestId: string, operation: string): Response {
  if (isApiError(error)) {
    if (error.status >= 500) logError(error, requestId, operation);
    return errorResponse(error, requestId);
  }
  logError(error, requestId, operation);
  const code = (error as { code?: unknown } | null)?.code;
  const unavailable = typeof code === "string" && UNAVAILABLE_CODES.has(code);
  return errorResponse(new ApiError(unavailable ? "service/unavailable" : "internal/unexpected", undefined, {
    headers: unavailable ? { "Retry-After": "5" } : {},
  }), requestId);
}

function logError(error: unknown, requestId: string, operation: string) {
  const describe = (e: unknown) => (e instanceof Error ? (e.stack ?? e.message) : String(e));
  const cause = error instanceof Error && error.cause !== undefined ? `\ncaused by: ${describe(error.cause)}` : "";
  const detail = describe(error) + cause;
  console.error(`[sieve] ${operation} failed (request ${requestId}): ${detail}`);
}

const ALL_METHODS: HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/**
 * Exports for a route file: the given handlers, a JSON 405 for every other method (so a wrong method
 * gets the spec's error body too), and an OPTIONS answer naming only the real methods.
 * Usage: `export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({ GET: ... })`.
 */
export function routes(
  handlers: Partial<Record<HttpMethod, RouteHandler>>,
): Record<HttpMethod | "OPTIONS", RouteHandler> {
  const real = ALL_METHODS.filter((m) => handlers[m]);
  const allow = [...real, ...(real.includes("GET") ? ["HEAD"] : []), "OPTIONS"].join(", ");
  const requestIdOf = (request: Request) => request.headers.get("x-request-id") ?? randomUUID();
  const notAllowed: RouteHandler = async (request) => {
    const response = errorResponse(
      new ApiError("request/method-not-allowed", `${request.method} is not allowed here; allowed: ${allow}.`),
      requestIdOf(request),
    );
    response.headers.set("Allow", allow);
    return response;
  };
  const options: RouteHandler = async (request) =>
    new Response(null, { status: 204, headers: { Allow: allow, "X-Request-Id": requestIdOf(request) } });
  const table = Object.fromEntries(ALL_METHODS.map((m) => [m, handlers[m] ?? notAllowed]));
  return { ...table, OPTIONS: options } as Record<HttpMethod | "OPTIONS", RouteHandler>;
}
