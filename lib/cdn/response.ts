import type { Readable } from "node:stream";
import type { HotMemo } from "@/lib/cdn/hot-path";
import { ApiError, isApiError } from "@/lib/core/errors";

/** A CDN request, independent of the server that received it. */
export interface CdnRequest {
  method: string;
  /** The path below {cdn_url}, still percent-encoded: `/assets/...`. */
  path: string;
  query: URLSearchParams;
  header(name: string): string | undefined;
  requestId: string;
}

/** A CDN answer, independent of the server that writes it (Node http below Next.js, or a route handler). */
export interface CdnResponse {
  status: number;
  headers: Record<string, string>;
  /** Null for 304, HEAD and errors without body. */
  body: Buffer | Readable | null;
  /** Set on a full 200 from memory: the LRU key of the bytes (serve.ts), then what the hot path must re-check (handler.ts). */
  memoKey?: string;
  memo?: HotMemo;
}

/** The spec's error body, with X-Request-Id set by the caller. */
export function cdnError(error: unknown, requestId: string): CdnResponse {
  const apiError = isApiError(error) ? error : new ApiError("internal/unexpected");
  if (!isApiError(error)) console.error(`[cdn] ${requestId}:`, error);
  const body = Buffer.from(JSON.stringify({ message: apiError.message, code: apiError.code, traceId: requestId }));
  return {
    status: apiError.status,
    headers: {
      ...apiError.headers,
      "Content-Type": "application/json; charset=utf-8",
      "Content-Length": String(body.length),
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
    body,
  };
}
