import type { z } from "zod";
import type { Permission } from "@/lib/auth/permissions";
import type { ErrorCode } from "@/lib/core/errors";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * The declaration of one API operation: the single source for validation (the wrapper parses with
 * these schemas), permissions, idempotency and the OpenAPI document.
 */
export interface EndpointSpec<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType | "raw" = z.ZodType | "raw",
> {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI path relative to the API base, e.g. `/projects/{projectId}/assets`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** `none` only for the health check and the OpenAPI document. */
  auth: "apiKey" | "none";
  permission?: Permission;
  params?: P;
  query?: Q;
  /** A zod schema for JSON bodies, or `raw` for endpoints that stream the request body. */
  body?: B;
  /** Content types accepted by a raw body (documentation only). */
  rawContentDescription?: string;
  /** A raw endpoint that also takes JSON (parsed by the handler with this schema). */
  jsonBodyAlternative?: z.ZodType;
  /** Headers the endpoint reads, for the OpenAPI document. */
  headers?: { name: string; required: boolean; description: string }[];
  response: { status?: number; description: string; schema?: z.ZodType; contentType?: string };
  errors: ErrorCode[];
  idempotent?: boolean;
  /** Maximum JSON body size in bytes; defaults to the configured JSON limit. */
  maxBodyBytes?: number;
}

export function defineEndpoint<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType | "raw">(
  spec: EndpointSpec<P, Q, B>,
): EndpointSpec<P, Q, B> {
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
