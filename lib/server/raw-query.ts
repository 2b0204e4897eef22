import type http from "node:http";

/**
 * Next.js decodes and re-encodes a request's query before a route handler sees it, so bytes that are
 * not UTF-8 arrive as U+FFFD and can no longer be refused. The server hands the raw query over in
 * this header, always overwriting whatever a client sent under that name (lib/http/input.ts reads it).
 */
export const RAW_QUERY_HEADER = "x-sieve-raw-query";

export function keepRawQuery(req: http.IncomingMessage): void {
  const url = req.url ?? "";
  const at = url.indexOf("?");
  req.headers[RAW_QUERY_HEADER] = at < 0 ? "" : url.slice(at + 1);
}
