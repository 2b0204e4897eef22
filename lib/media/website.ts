import type { Readable } from "node:stream";
import { ApiError } from "@/lib/core/errors";
import { fetchFailed } from "@/lib/net/limited-body";
import { safeFetch } from "@/lib/net/safe-fetch";
import { DEFAULT_MAX_TEXT_CHARS, htmlToText, plainText } from "./html-to-text";
import { decodeBody, parseContentType } from "./page-decoding";

/**
 * Readable text of a web page for moderation, fetched through the SSRF-safe `safeFetch` (address
 * policy, redirects re-checked, size and time limits) and converted without an HTML library.
 *
 * Errors are ApiErrors: `asset/url-not-allowed` (bad URL or forbidden address, from safeFetch),
 * `asset/url-fetch-failed` (network, HTTP status, timeout), `upload/too-large` (more than
 * maxBytes), and UnsupportedContentTypeError (an `asset/url-fetch-failed` subclass) for anything
 * other than HTML, XHTML or plain text.
 *
 * HTML becomes text in html-to-text.ts (entities: html-entities.ts); bytes become a string in
 * page-decoding.ts.
 */

export { DEFAULT_MAX_TEXT_CHARS, htmlToText, type HtmlText } from "./html-to-text";
export { decodeEntities, entityNames } from "./html-entities";
export { decodeBody, parseContentType } from "./page-decoding";

export interface WebsiteTextOptions {
  /** Budget for the whole fetch: DNS, connect, redirects, headers and the complete body. */
  timeoutMs: number;
  /** Larger bodies fail with upload/too-large (declared Content-Length or counted bytes). */
  maxBytes: number;
  allowPrivateNetworks: boolean;
  /** Default 5. */
  maxRedirects?: number;
  /** Text longer than this is cut (at a word boundary when possible). Default 200 000. */
  maxChars?: number;
}

export interface WebsiteText {
  /** The URL after redirects. */
  finalUrl: string;
  title: string | null;
  /** meta description, else og:description. */
  description: string | null;
  /** Visible text: blocks on their own lines, paragraphs separated by a blank line. */
  text: string;
  /** Media type without parameters: text/html, application/xhtml+xml or text/plain. */
  contentType: string;
  /** The encoding the body was decoded with (WHATWG name, e.g. "utf-8", "windows-1252"). */
  charset: string;
  /** True when `text` was cut at maxChars. */
  truncated: boolean;
}

const ACCEPTED_TYPES: ReadonlySet<string> = new Set(["text/html", "application/xhtml+xml", "text/plain"]);

/** The URL answered with something that is not a web page or plain text. */
export class UnsupportedContentTypeError extends ApiError {
  constructor(readonly contentType: string | null) {
    super(
      "asset/url-fetch-failed",
      contentType
        ? `The URL returned ${contentType.slice(0, 100)}, not a web page (text/html, application/xhtml+xml or text/plain).`
        : "The URL returned no Content-Type; only text/html, application/xhtml+xml and text/plain are read.",
    );
    this.name = "UnsupportedContentTypeError";
  }
}

export async function fetchWebsiteText(url: string, options: WebsiteTextOptions): Promise<WebsiteText> {
  const started = Date.now();
  const res = await safeFetch(url, {
    allowPrivateNetworks: options.allowPrivateNetworks,
    timeoutMs: options.timeoutMs,
    maxRedirects: options.maxRedirects ?? 5,
    maxBytes: options.maxBytes,
    headers: { accept: "text/html,application/xhtml+xml;q=0.9,text/plain;q=0.8,*/*;q=0.1" },
  });
  const { mediaType, charset: headerCharset } = parseContentType(res.contentType);
  if (!mediaType || !ACCEPTED_TYPES.has(mediaType)) {
    res.body.destroy();
    throw new UnsupportedContentTypeError(res.contentType);
  }
  const bytes = await readAll(res.body, Math.max(1, options.timeoutMs - (Date.now() - started)), options.timeoutMs);
  const isHtml = mediaType !== "text/plain";
  const { text: decoded, encoding } = decodeBody(bytes, headerCharset, isHtml);
  const maxChars = options.maxChars ?? DEFAULT_MAX_TEXT_CHARS;
  const page = isHtml ? htmlToText(decoded, { maxChars }) : plainText(decoded, maxChars);
  return { finalUrl: res.url, contentType: mediaType, charset: encoding, ...page };
}

/** Reads the whole (already size-limited) body, failing once the overall deadline passes. */
function readAll(body: Readable, remainingMs: number, timeoutMs: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(
      () => body.destroy(fetchFailed(`timed out after ${timeoutMs} ms before the page was complete`)),
      remainingMs,
    );
    body.on("data", (chunk: Buffer) => chunks.push(chunk));
    body.once("end", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    body.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
