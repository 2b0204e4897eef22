import type { Readable } from "node:stream";
import type { z } from "zod";
import type { Permission } from "@/lib/auth/permissions";
import type { ErrorCode } from "@/lib/core/errors";
import type { HeaderSchema } from "@/lib/http/headers";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** A streamed request body (raw-bytes endpoints). */
export interface RawBody {
  stream: Readable;
  contentType: string | null;
  contentLength: number | null;
}

/**
 * A body that is either JSON or raw bytes. It is JSON when `Content-Type: application/json` comes
 * without an X-Service-Upload header; otherwise raw bytes, which need `rawHeaders`.
 */
export interface RawOrJsonBody<J extends z.ZodType = z.ZodType, H extends HeaderSchema = HeaderSchema> {
  kind: "rawOrJson";
  json: J;
  /** Headers the raw form needs (handed over parsed); the JSON form ignores them. */
  rawHeaders: H;
}

export function rawOrJson<J extends z.ZodType, H extends HeaderSchema>(body: { json: J; rawHeaders: H }): RawOrJsonBody<J, H> {
  return { kind: "rawOrJson", ...body };
}

/** What a handler receives for a raw-or-JSON body. */
export type RawOrJsonValue<J, H> = { kind: "json"; value: J } | { kind: "raw"; body: RawBody; headers: H };

export type BodyDeclaration = z.ZodType | "raw" | RawOrJsonBody;

export type BodyOf<B> = B extends "raw"
  ? RawBody
  : B extends RawOrJsonBody<infer J, infer H>
    ? RawOrJsonValue<z.output<J>, z.output<H>>
    : B extends z.ZodType
      ? z.output<B>
      : never;

export function isRawOrJson(body: BodyDeclaration | undefined): body is RawOrJsonBody {
  return typeof body === "object" && "kind" in body && body.kind === "rawOrJson";
}

/**
 * The declaration of one API operation: the single source for validation (the wrapper parses with
 * these schemas), permissions, idempotency and the OpenAPI document.
 */
export interface EndpointSpec<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends BodyDeclaration = BodyDeclaration,
  H extends HeaderSchema = HeaderSchema,
  R extends z.ZodType = z.ZodType,
> {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI path relative to the API base, e.g. `/projects/{projectId}/assets`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /**
   * `apiKey` for the API; `session` for the portal's JSON routes (a signed-in member of the path's
   * project, same-origin mutations); `none` only for the health check and the OpenAPI document.
   */
  auth: "apiKey" | "session" | "none";
  permission?: Permission;
  /**
   * Session endpoints only: the member must also be a project admin (lib/auth/permissions.ts
   * isProjectAdmin): API keys, members and invitations are not API permissions.
   */
  adminOnly?: boolean;
  /** Parsed after a malformed id has answered its not-found code (lib/http/params.ts). */
  params?: P;
  query?: Q;
  /**
   * Request headers the handler reads (lib/http/headers.ts). Idempotency-Key is not declared here:
   * `idempotent` covers it.
   */
  headers?: H;
  /** A zod schema for JSON bodies, `raw` for a streamed body, or `rawOrJson(...)` for either. */
  body?: B;
  /** What a raw body holds (documentation only). */
  rawContentDescription?: string;
  /**
   * `schema` documents the success body and types the handler: handle() accepts only a value of
   * `z.output<schema>` (or a whole Response), so the body sent is the body documented.
   */
  response: { status?: number; description: string; schema?: R; contentType?: string };
  errors: ErrorCode[];
  idempotent?: boolean;
  /** Maximum JSON body size in bytes; defaults to the configured JSON limit. */
  maxBodyBytes?: number;
}

export function defineEndpoint<P extends z.ZodType, Q extends z.ZodType, B extends BodyDeclaration, H extends HeaderSchema, R extends z.ZodType = z.ZodType>(
  spec: EndpointSpec<P, Q, B, H, R>,
): EndpointSpec<P, Q, B, H, R> {
  return spec;
}

/** Error codes shared by families of endpoints, for their `errors` lists. */
export const AUTH_ERRORS: ErrorCode[] = [
  "auth/missing-token",
  "auth/invalid-api-key",
  "auth/project-mismatch",
  "auth/insufficient-permissions",
  "rate-limit/exceeded",
];
export const JSON_BODY_ERRORS: ErrorCode[] = ["request/validation-failed", "request/malformed-json", "request/body-too-large"];
export const IDEMPOTENCY_ERRORS: ErrorCode[] = ["idempotency/invalid-key", "idempotency/request-in-progress", "idempotency/key-reused"];
