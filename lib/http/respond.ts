import { ApiError } from "@/lib/core/errors";

export const REQUEST_ID_HEADER = "X-Request-Id";

/** The spec's error body `{message, code, traceId}`; nothing else leaks (no stack traces). */
export function errorResponse(error: ApiError, requestId: string): Response {
  return Response.json(
    { message: error.message, code: error.code, traceId: requestId },
    { status: error.status, headers: { ...error.headers, [REQUEST_ID_HEADER]: requestId } },
  );
}

/**
 * JSON response. Serializers turn BigInt columns into numbers (sizes stay below 2^53 by
 * validation); a BigInt that slips through is still written as a number, via the slower replacer.
 */
export function jsonResponse(data: unknown, status: number, headers: Record<string, string>): Response {
  let body: string;
  try {
    body = JSON.stringify(data);
  } catch {
    body = JSON.stringify(data, (_key, value: unknown) => (typeof value === "bigint" ? Number(value) : value));
  }
  return new Response(body, { status, headers: { "Content-Type": "application/json", ...headers } });
}
