import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { authenticateApiKey } from "@/lib/auth/api-keys";
import { assertPermission, assertProjectAccess, authorizeMember, type ProjectMemberActor } from "@/lib/auth/authorize";
import type { AuthenticatedKey } from "@/lib/auth/types";
import { config } from "@/lib/core/config";
import type { BodyDeclaration, BodyOf, EndpointSpec, HttpMethod } from "@/lib/http/endpoint";
import { ApiError, isApiError } from "@/lib/core/errors";
import type { HeaderSchema } from "@/lib/http/headers";
import {
  claimIdempotencyKey,
  replayOrRefuse,
  storeIdempotentResponse,
  validateIdempotencyKey,
} from "@/lib/http/idempotency";
import { parseInput } from "@/lib/http/input";
import { checkPathParams } from "@/lib/http/params";
import { takeToken } from "@/lib/core/rate-limit";
import { assertSameOrigin, portalSessionUser, type SessionUser } from "@/lib/http/session-auth";
import { errorResponse, jsonResponse, REQUEST_ID_HEADER } from "@/lib/http/respond";

export interface RequestContext {
  requestId: string;
  request: Request;
  /** The authenticated key, on endpoints declared with `auth: "apiKey"`. */
  apiKey: AuthenticatedKey;
  /** The signed-in user, on endpoints declared with `auth: "session"`. */
  user: SessionUser;
  /** The user's standing in the path's project (session endpoints with a projectId). */
  member: ProjectMemberActor;
}

export interface HandlerInput<P extends z.ZodType, Q extends z.ZodType, B extends BodyDeclaration, H extends HeaderSchema> {
  params: z.output<P>;
  query: z.output<Q>;
  headers: z.output<H>;
  body: BodyOf<B>;
  ctx: RequestContext;
}

/** What a handler returns: data to send as JSON with the declared status, or a full Response. */
export type HandlerResult = Response | object;

/**
 * What a handler of an endpoint may return: a full Response, or its documented success body (the
 * output type of the spec's response schema). This is the compile-time link between what the API
 * sends and the OpenAPI document; an endpoint without a response schema may return anything.
 */
export type HandlerReturn<R extends z.ZodType> = Response | z.output<R>;

type RouteContext = { params: Promise<Record<string, string | string[] | undefined>> };
export type RouteHandler = (request: Request, context: RouteContext) => Promise<Response>;

/**
 * The one wrapper every API route uses. Order: request id → auth → path ids and project access →
 * permission → rate limit → input parsing (params, query, headers, body) → idempotency → handler →
 * error mapping.
 */
export function handle<P extends z.ZodType, Q extends z.ZodType, B extends BodyDeclaration, H extends HeaderSchema, R extends z.ZodType>(
  spec: EndpointSpec<P, Q, B, H, R>,
  fn: (input: HandlerInput<P, Q, B, H>) => Promise<HandlerReturn<R>>,
): RouteHandler {
  const handler: RouteHandler = async (request, context) => {
    const requestId = request.headers.get("x-request-id") ?? randomUUID();
    try {
      const response = await run(spec as EndpointSpec, fn as (input: unknown) => Promise<HandlerResult>, request, context, requestId);
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

async function run(
  spec: EndpointSpec,
  fn: (input: unknown) => Promise<HandlerResult>,
  request: Request,
  context: RouteContext,
  requestId: string,
): Promise<Response> {
  const rawParams = (await context?.params) ?? {};
  const apiKey = spec.auth === "apiKey" ? await authenticateApiKey(request.headers.get("x-api-key")) : null;
  if (spec.auth === "session") assertSameOrigin(request);
  const user = spec.auth === "session" ? await portalSessionUser() : null;
  const checkedParams = checkPathParams(rawParams);
  let member: ProjectMemberActor | null = null;
  if (user) {
    if (typeof checkedParams.projectId === "string") member = await authorizeMember(user.userId, checkedParams.projectId, spec.permission, { admin: spec.adminOnly });
    takeToken(`user:${user.userId}`, config().rateLimit);
  }
  if (apiKey) {
    if (typeof checkedParams.projectId === "string") await assertProjectAccess(apiKey, checkedParams.projectId);
    assertPermission(apiKey, spec.permission);
    // A key's own limit replaces the server default; its burst is one second's worth.
    const own = apiKey.rateLimitPerSecond;
    takeToken(apiKey.id, own === null ? config().rateLimit : { perSecond: own, burst: own });
  }

  const idempotencyKey = spec.idempotent && apiKey ? request.headers.get("idempotency-key") : null;
  const { requestHash, rawReader, ...parsed } = await parseInput(spec, request, checkedParams, idempotencyKey !== null);
  const input = {
    ...parsed,
    ctx: { requestId, request, apiKey: apiKey as AuthenticatedKey, user: user as SessionUser, member: member as ProjectMemberActor },
  };
  if (idempotencyKey === null || !apiKey) return respond(spec, await fn(input));

  const scope = { apiKeyId: apiKey.id, projectId: apiKey.projectId, route: spec.operationId, key: validateIdempotencyKey(idempotencyKey) };
  const claim = await claimIdempotencyKey(scope, requestHash);
  if (claim.kind === "stored") {
    if (rawReader) {
      // A raw body is identified by its digest, so a finished duplicate is read (not stored) first.
      if (claim.record.responseStatus === null) throw new ApiError("idempotency/request-in-progress");
      return replayOrRefuse(claim.record, `${requestHash}:${await rawReader.drain()}`, requestId);
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

function respond(spec: EndpointSpec, result: HandlerResult): Response {
  if (result instanceof Response) return result;
  return jsonResponse(result, spec.response.status ?? 200, {});
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
