import type { z } from "zod";
import { ERROR_CODES, type ErrorCode } from "@/lib/core/errors";
import { isRawOrJson, type EndpointSpec } from "@/lib/http/endpoint";
import { headerFailureOf, type HeaderSchema } from "@/lib/http/headers";
import { notFoundCodeOf } from "@/lib/http/params";

/**
 * The codes an operation can answer with: those its spec lists, plus the ones the `handle()` wrapper
 * itself produces for this kind of endpoint (auth, permission, rate limit, path ids, input
 * parsing, idempotency, unexpected failures, an unreachable database), so the document stays right
 * when a spec forgets one.
 */
export function errorCodesOf(spec: EndpointSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>(spec.errors);
  const pathNames = pathTemplateNames(spec.path);
  if (spec.auth === "apiKey") {
    codes.add("auth/missing-token").add("auth/invalid-api-key").add("rate-limit/exceeded");
    if (spec.permission) codes.add("auth/insufficient-permissions");
    if (pathNames.includes("projectId")) codes.add("auth/project-mismatch");
    if (spec.idempotent) codes.add("idempotency/invalid-key").add("idempotency/request-in-progress").add("idempotency/key-reused");
  }
  for (const name of pathNames) {
    const notFound = notFoundCodeOf(name);
    if (notFound) codes.add(notFound);
  }
  // Every endpoint refuses query parameters it does not declare (lib/http/input.ts), and bytes in
  // the query that are not UTF-8.
  codes.add("request/validation-failed");
  for (const code of headerCodes(spec.headers)) codes.add(code);
  if (spec.body && spec.body !== "raw") codes.add("request/malformed-json").add("request/body-too-large");
  if (isRawOrJson(spec.body)) for (const code of headerCodes(spec.body.rawHeaders)) codes.add(code);
  codes.add("internal/unexpected");
  // A key is looked up in the database: when it cannot be reached, 503 (lib/http/handler.ts).
  if (spec.auth !== "none") codes.add("service/unavailable");
  const order = Object.keys(ERROR_CODES);
  return [...codes].sort((a, b) => order.indexOf(a) - order.indexOf(b));
}

/** Each declared header fails with its own code, or request/validation-failed. */
function headerCodes(headers: HeaderSchema | undefined): ErrorCode[] {
  const schemas: z.ZodType[] = Object.values(headers?.shape ?? {});
  return schemas.map((schema) => headerFailureOf(schema)?.code ?? "request/validation-failed");
}

export function pathTemplateNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
}
