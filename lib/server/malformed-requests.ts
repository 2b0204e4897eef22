import type http from "node:http";
import type { Duplex } from "node:stream";
import { ApiError, type ErrorCode } from "@/lib/core/errors";

/**
 * Requests Next.js would answer with a bare page (or Node with a bare status line) get the API's
 * error body `{message, code, traceId}` here instead: a URL path that is not valid percent-encoded
 * UTF-8 (Next.js answers 500), and requests Node's HTTP parser refuses (431 for a URL or headers
 * over its 16 KiB limit, 400 for anything else malformed).
 */
function errorBody(code: ErrorCode, message: string, requestId: string): string {
  return JSON.stringify({ message, code, traceId: requestId });
}

/** Answers and returns true when the URL path cannot be decoded. */
export function refuseMalformedUrl(req: http.IncomingMessage, res: http.ServerResponse, requestId: string): boolean {
  const path = (req.url ?? "/").split("?", 1)[0]!;
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    answerApiError(res, new ApiError("request/validation-failed", "The URL path is not valid percent-encoded UTF-8."), requestId);
    return true;
  }
}

/** Answers `error` in the spec's error body (the CDN processes' 404 too). */
export function answerApiError(res: http.ServerResponse, error: ApiError, requestId: string): void {
  const body = errorBody(error.code, error.message, requestId);
  res.writeHead(error.status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), "X-Request-Id": requestId });
  res.end(body);
}

/** For the server's `clientError` event: the parser gave up on the request, so the socket closes. */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex, requestId: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === "HPE_HEADER_OVERFLOW";
  const code: ErrorCode = tooLarge ? "request/header-too-large" : "request/validation-failed";
  const apiError = new ApiError(code, tooLarge ? undefined : "The request is not valid HTTP.");
  const body = errorBody(code, apiError.message, requestId);
  const reason = tooLarge ? "Request Header Fields Too Large" : "Bad Request";
  socket.end(
    `HTTP/1.1 ${apiError.status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}
