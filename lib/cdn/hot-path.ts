import type { IncomingMessage, ServerResponse } from "node:http";
import { assetStates, type CdnAsset } from "@/lib/cdn/asset-state";
import { etagMatches } from "@/lib/cdn/conditional";
import { cachedBytes } from "@/lib/cdn/derived-cache";
import { peekOwnLens, type CdnLens } from "@/lib/cdn/lens-lookup";
import { processSingleton } from "@/lib/core/singleton";

/**
 * The CDN's hot path: a repeat GET of a public resource whose bytes are in memory is answered
 * synchronously — no promise, no parsing — from what the full handler (handler.ts) worked out the
 * first time for the same URL. It stays exactly as strict: the entry is used only while the
 * asset's cached state (and the lens's, for a lens URL) is the very object the full handler
 * checked; any change notification replaces that object, so the next request takes the full path
 * again. Ranges, credentials and HEAD always take the full path.
 */
export interface HotMemo {
  stateKey: string;
  state: CdnAsset;
  lens?: { projectId: string; identifier: string; own: CdnLens | null };
  bytesKey: string;
}

interface HotEntry extends HotMemo {
  etag: string;
  /** Response headers as a flat [name, value, ...] list, without X-Request-Id. */
  headers: string[];
}

const MAX_ENTRIES = 20_000;

function entries(): Map<string, HotEntry> {
  return processSingleton("cdn-hot-path", () => new Map<string, HotEntry>());
}

/** What the hot path answers, and so what it may remember: a GET without a range or an API key. */
function eligible(req: IncomingMessage): boolean {
  return req.method === "GET" && req.headers.range === undefined && req.headers["x-api-key"] === undefined;
}

export function serveHot(req: IncomingMessage, res: ServerResponse, requestId: string): boolean {
  if (!eligible(req)) return false;
  const url = req.url as string;
  const hot = entries();
  const entry = hot.get(url);
  if (!entry) return false;
  const state = assetStates().cache.get(entry.stateKey);
  if (state?.value !== entry.state || (entry.lens && peekOwnLens(entry.lens.projectId, entry.lens.identifier)?.value !== entry.lens.own)) {
    hot.delete(url);
    return false;
  }
  const bytes = cachedBytes(entry.bytesKey);
  if (!bytes) return false;
  const headers = entry.headers.slice();
  headers.push("X-Request-Id", requestId);
  const ifNoneMatch = req.headers["if-none-match"];
  if (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, entry.etag)) {
    res.writeHead(304, withoutLength(headers));
    res.end();
    return true;
  }
  res.writeHead(200, headers);
  res.end(bytes.data);
  return true;
}

/** Called after the full handler answered `req` with a 200 from memory for a public asset. */
export function rememberHot(req: IncomingMessage, memo: HotMemo, headers: Record<string, string>): void {
  if (!eligible(req)) return;
  const url = req.url as string;
  const hot = entries();
  if (hot.size >= MAX_ENTRIES) hot.delete(hot.keys().next().value as string);
  const flat: string[] = [];
  for (const [name, value] of Object.entries(headers)) if (name !== "X-Request-Id") flat.push(name, value);
  hot.set(url, { ...memo, etag: headers.ETag as string, headers: flat });
}

function withoutLength(flat: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < flat.length; i += 2) if (flat[i] !== "Content-Length") out.push(flat[i] as string, flat[i + 1] as string);
  return out;
}
