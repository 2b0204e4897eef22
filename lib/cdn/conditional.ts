/**
 * HTTP semantics the CDN implements itself (below Next.js nothing does it for us): entity tags
 * with If-None-Match, single byte ranges with If-Range, and the headers of active content.
 */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === "*") return true;
  // Weak comparison (RFC 9110 13.1.2): W/ prefixes are ignored.
  const bare = etag.replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === bare);
}

export type RangeRequest = { kind: "none" } | { kind: "range"; start: number; end: number } | { kind: "unsatisfiable" };

/**
 * One `bytes=` range (start-end, start-, -suffix). Several ranges, other units or a syntax error
 * are ignored (the whole body is sent, as RFC 9110 allows); If-Range with another tag does the same.
 */
export function parseRange(header: string | undefined, size: number, ifRange: string | undefined, etag: string): RangeRequest {
  if (!header || (ifRange !== undefined && ifRange.trim() !== etag)) return { kind: "none" };
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return { kind: "none" };
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0) return { kind: "unsatisfiable" };
    return size === 0 ? { kind: "unsatisfiable" } : { kind: "range", start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (match[2] !== "" && Number(match[2]) < start) return { kind: "none" };
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "range", start, end };
}

/** Types a browser would run (scripts in SVG, HTML): sandboxed and downloaded, never rendered in our origin. */
const ACTIVE_TYPES = /^(image\/svg\+xml|text\/html|application\/xhtml\+xml|text\/xml|application\/xml|text\/javascript|application\/javascript|application\/ecmascript|text\/xsl)\b/i;

export function isActiveContent(contentType: string): boolean {
  return ACTIVE_TYPES.test(contentType);
}

export const ACTIVE_CONTENT_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:";

export function contentDisposition(kind: "inline" | "attachment", filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}
