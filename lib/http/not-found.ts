import { randomUUID } from "node:crypto";
import { ApiError } from "@/lib/core/errors";
import { errorResponse } from "@/lib/http/respond";

/** Handler for unknown paths below an API prefix: the spec's error body, with the request id. */
export async function routeNotFound(request: Request): Promise<Response> {
  const requestId = request.headers.get("x-request-id") ?? randomUUID();
  const { pathname } = new URL(request.url);
  return errorResponse(new ApiError("request/route-not-found", `No endpoint at ${request.method} ${pathname}.`), requestId);
}
