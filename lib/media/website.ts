import type { Readable } from "node:stream";
import { ApiError } from "@/lib/core/errors";
import { fetchFailed } from "@/lib/net/limited-body";
import { safeFetch } from "@/lib/net/safe-fetch";

/**
 * Readable text of a web page for moderation, fetched through the SSRF-safe `safeFetch` (address
 * policy, redirects re-checked, size and time limits) and converted without an HTML library.
 *
 * Errors are ApiErrors: `asset/url-not-allowed` (bad URL or forbidden address, from safeFetch),
 * `asset/url-fetch-failed` (network, HTTP status, timeout), `upload/too-large` (more than
 * maxBytes), and UnsupportedContentTypeError (an `asset/url-fetch-failed` subclass) for anything
 * other than HTML, XHTML or plain text.
 *
 * Entities are decoded by a small built-in decoder (numeric references, the HTML 4 set and common
 * HTML 5 names). The `he` package is only in the tree as a dev dependency of s3rver, so importing
 * it here would break production installs (`npm ci --omit=dev`).
 */

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

export const DEFAULT_MAX_TEXT_CHARS = 200_000;
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

// ---------------------------------------------------------------------------------------------
// Body, content type, charset

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

export function parseContentType(header: string | null): { mediaType: string | null; charset: string | null } {
  if (!header) return { mediaType: null, charset: null };
  const [type = "", ...params] = header.split(";");
  let charset: string | null = null;
  for (const param of params) {
    const m = /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(param);
    if (m) charset = m[1]!.toLowerCase();
  }
  return { mediaType: type.trim().toLowerCase() || null, charset };
}

/**
 * Decodes with, in order: a byte-order mark, the Content-Type charset, (HTML only) a
 * `<meta charset>` / `<meta http-equiv="Content-Type">` in the first 4 KiB, else UTF-8. Labels are
 * WHATWG encoding labels, so latin1 / iso-8859-1 / us-ascii mean windows-1252, as in browsers.
 * Unknown labels fall back to UTF-8.
 */
export function decodeBody(bytes: Uint8Array, headerCharset: string | null, isHtml: boolean): { text: string; encoding: string } {
  let label: string | null = null;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) label = "utf-8";
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) label = "utf-16be";
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) label = "utf-16le";
  const candidates = [label, headerCharset];
  if (isHtml) {
    const meta = sniffMetaCharset(bytes);
    // A meta tag that could be read as ASCII cannot truly mean UTF-16 (HTML spec: use UTF-8).
    candidates.push(meta && /^utf-?16/i.test(meta) ? "utf-8" : meta);
  }
  for (const candidate of candidates) {
    const decoder = candidate ? tryDecoder(candidate) : null;
    if (decoder) return { text: decode(decoder, bytes), encoding: decoder.encoding };
  }
  const utf8 = new TextDecoder("utf-8");
  return { text: utf8.decode(bytes), encoding: utf8.encoding };
}

/**
 * Node 20's TextDecoder decodes "windows-1252" (and so latin1 / iso-8859-1 / ascii labels) as ISO
 * 8859-1, turning 0x80..0x9F into C1 controls instead of "€", curly quotes, dashes...
 */
function decode(decoder: TextDecoder, bytes: Uint8Array): string {
  if (decoder.encoding !== "windows-1252") return decoder.decode(bytes);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .toString("latin1")
    .replace(/[\u0080-\u009f]/g, (c) => String.fromCharCode(C1[c.charCodeAt(0)] ?? c.charCodeAt(0)));
}

function tryDecoder(label: string): TextDecoder | null {
  try {
    return new TextDecoder(label.trim());
  } catch {
    return null;
  }
}

function sniffMetaCharset(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 4096)).toString("latin1");
  const withoutComments = head.replace(/<!--[\s\S]*?-->/g, "");
  const m = /<meta\b[^>]*?\bcharset\s*=\s*["']?\s*([a-z0-9._:-]+)/i.exec(withoutComments);
  return m ? m[1]!.toLowerCase() : null;
}

// ---------------------------------------------------------------------------------------------
// HTML to text

export interface HtmlText {
  title: string | null;
  description: string | null;
  text: string;
  truncated: boolean;
}

/** Elements whose whole content is dropped (their subtree is never rendered as page text). */
const DROPPED = new Set(["script", "style", "noscript", "template", "svg", "math", "iframe", "object", "canvas"]);
/** Elements whose content is raw text: it ends at the first matching end tag, nothing nests. */
const RAW_TEXT = new Set(["script", "style", "noscript", "iframe", "title", "textarea", "xmp", "plaintext"]);
/** Start and end put the content on its own line. */
const BLOCK = new Set([
  "address", "article", "aside", "body", "caption", "center", "dd", "details", "dialog", "dir", "div", "dl", "dt",
  "fieldset", "figcaption", "figure", "footer", "form", "header", "hgroup", "html", "legend", "li", "main", "menu",
  "nav", "ol", "option", "optgroup", "section", "select", "summary", "table", "tbody", "tfoot", "thead",
  "tr", "ul", "label", "button",
]);
/** Start and end also leave a blank line. */
const PARAGRAPH = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "hr", "table", "ul", "ol", "dl"]);
/** Cells stay on their row, separated by a space. */
const CELL = new Set(["td", "th"]);

/** Elements that may appear in <head>; any other start tag (or text) ends a head left open. */
const HEAD_CONTENT = new Set(["title", "meta", "link", "style", "script", "noscript", "base", "template"]);

const TAG_OPEN = /<(\/?)([a-zA-Z][^\s/>]*)/y;
const ATTRIBUTE = /([^\s=/>"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;

/**
 * Visible text of an HTML document: drops head (keeping <title> and the meta description),
 * script, style, noscript, template, svg and similar; puts block elements and <br> on new lines;
 * decodes entities; collapses whitespace (except line breaks inside <pre>).
 */
export function htmlToText(html: string, options: { maxChars?: number } = {}): HtmlText {
  const maxChars = options.maxChars ?? DEFAULT_MAX_TEXT_CHARS;
  const out: string[] = [];
  let outLength = 0;
  let title: string | null = null;
  let ogTitle: string | null = null;
  let description: string | null = null;
  let ogDescription: string | null = null;
  let inHead = false;
  let preDepth = 0;
  let pos = 0;
  // Stop converting well past the cap: the output is cut precisely afterwards.
  const budget = maxChars * 2 + 1000;

  const emitText = (raw: string) => {
    if (!raw) return;
    if (inHead) {
      if (!/[^\s]/.test(raw)) return;
      inHead = false; // text cannot be in <head>: the browser has moved on to the body
    }
    let text = decodeEntities(raw.replace(/\u0000/g, ""), false);
    text = preDepth > 0 ? text.replace(/\r\n?/g, "\n").replace(/\n/g, "\u0000") : text.replace(/\s+/g, " ");
    push(text);
  };
  // Breaks are pending until the next text, so adjacent block boundaries give one line break
  // (two for paragraphs), not one per tag. "\u0000" marks a line break until the final cleanup.
  let pendingBreak = 0;
  const push = (text: string) => {
    if (pendingBreak > 0 && out.length > 0) out.push(pendingBreak > 1 ? "\u0000\u0000" : "\u0000");
    pendingBreak = 0;
    out.push(text);
    outLength += text.length;
  };
  const emitBreak = (blank: boolean) => {
    pendingBreak = Math.max(pendingBreak, blank ? 2 : 1);
  };
  const emitCellGap = () => {
    if (pendingBreak === 0) out.push(" ");
  };

  while (pos < html.length && outLength < budget) {
    const lt = html.indexOf("<", pos);
    if (lt === -1) {
      emitText(html.slice(pos));
      break;
    }
    if (lt > pos) emitText(html.slice(pos, lt));
    pos = lt;

    if (html.startsWith("<!--", pos)) {
      const end = html.indexOf("-->", pos + 4);
      pos = end === -1 ? html.length : end + 3;
      continue;
    }
    if (html.startsWith("<![CDATA[", pos)) {
      const end = html.indexOf("]]>", pos + 9);
      const content = html.slice(pos + 9, end === -1 ? html.length : end);
      if (!inHead) push(content.replace(/\s+/g, " "));
      pos = end === -1 ? html.length : end + 3;
      continue;
    }
    if (html.startsWith("<!", pos) || html.startsWith("<?", pos)) {
      const end = html.indexOf(">", pos);
      pos = end === -1 ? html.length : end + 1;
      continue;
    }

    TAG_OPEN.lastIndex = pos;
    const m = TAG_OPEN.exec(html);
    if (!m) {
      emitText("<"); // not a tag: "a < b"
      pos += 1;
      continue;
    }
    const closing = m[1] === "/";
    const name = m[2]!.toLowerCase();
    const { attrs, end } = scanTag(html, TAG_OPEN.lastIndex);
    pos = end;
    const selfClosing = /\/\s*$/.test(attrs);

    if (closing) {
      if (name === "head") inHead = false;
      else if (name === "pre" && preDepth > 0) preDepth--;
      if (PARAGRAPH.has(name)) emitBreak(true);
      else if (BLOCK.has(name)) emitBreak(false);
      else if (CELL.has(name)) emitCellGap();
      continue;
    }

    if (inHead && !HEAD_CONTENT.has(name)) inHead = false;
    switch (name) {
      case "head":
        inHead = true;
        continue;
      case "body":
        inHead = false;
        break;
      case "title": {
        const end = findRawTextEnd(html, "title", pos);
        if (title === null) title = cleanInline(decodeEntities(html.slice(pos, end.contentEnd), false));
        pos = end.after;
        continue;
      }
      case "meta": {
        const a = parseAttributes(attrs);
        const key = (a.name ?? a.property ?? "").toLowerCase();
        const content = a.content === undefined ? null : cleanInline(a.content);
        if (content) {
          if (key === "description" && description === null) description = content;
          else if (key === "og:description" && ogDescription === null) ogDescription = content;
          else if (key === "og:title" && ogTitle === null) ogTitle = content;
        }
        continue;
      }
      case "br":
        if (pendingBreak > 0) emitBreak(false);
        else push("\u0000");
        continue;
      case "pre":
      case "listing":
        preDepth++;
        break;
    }

    if (DROPPED.has(name)) {
      if (!selfClosing) pos = RAW_TEXT.has(name) ? findRawTextEnd(html, name, pos).after : findElementEnd(html, name, pos);
      continue;
    }
    if (name === "plaintext") {
      // Everything after <plaintext> is text.
      emitText(html.slice(pos).replace(/[<&]/g, (c) => (c === "<" ? "&lt;" : "&amp;")));
      break;
    }
    if (RAW_TEXT.has(name)) {
      // textarea / xmp: content is text, not markup.
      const end = findRawTextEnd(html, name, pos);
      emitBreak(false);
      emitText(html.slice(pos, end.contentEnd).replace(/</g, "&lt;"));
      emitBreak(false);
      pos = end.after;
      continue;
    }
    if (PARAGRAPH.has(name)) emitBreak(true);
    else if (BLOCK.has(name)) emitBreak(false);
    else if (CELL.has(name)) emitCellGap();
  }

  const full = out
    .join("")
    .replace(/[ \t\f\v\u00a0\u2028\u2029]+/g, " ")
    .replace(/ ?\u0000 ?/g, "\u0000")
    .replace(/\u0000{3,}/g, "\u0000\u0000")
    .replace(/\u0000/g, "\n")
    .trim();
  const { text, truncated } = cap(full, maxChars, outLength >= budget);
  return {
    title: title || ogTitle || null,
    description: description || ogDescription || null,
    text,
    truncated,
  };
}

function plainText(decoded: string, maxChars: number): HtmlText {
  const full = decoded
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => line.replace(/[\s\u00a0]+/g, " ").trim())
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return { title: null, description: null, ...cap(full, maxChars, false) };
}

function cap(text: string, maxChars: number, alreadyCut: boolean): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: alreadyCut };
  let cut = text.slice(0, maxChars);
  const space = cut.search(/\s\S*$/);
  if (space > maxChars * 0.9) cut = cut.slice(0, space);
  // Do not leave half a surrogate pair.
  if (/[\ud800-\udbff]$/.test(cut)) cut = cut.slice(0, -1);
  return { text: cut.trimEnd(), truncated: true };
}

function cleanInline(value: string): string | null {
  const text = value.replace(/[\s\u00a0]+/g, " ").trim().slice(0, 2000);
  return text || null;
}

/**
 * Finds the ">" that ends a tag whose name ends at `from`. Quotes only count right after "=" (as
 * in the HTML tokenizer), so `alt=Joe's` does not swallow the page; linear, no backtracking.
 */
function scanTag(html: string, from: number): { attrs: string; end: number } {
  let i = from;
  while (i < html.length) {
    const c = html.charCodeAt(i);
    if (c === 62 /* > */) return { attrs: html.slice(from, i), end: i + 1 };
    i++;
    if (c === 61 /* = */) {
      while (i < html.length && /\s/.test(html[i]!)) i++;
      const quote = html[i];
      if (quote === '"' || quote === "'") {
        const close = html.indexOf(quote, i + 1);
        if (close === -1) break;
        i = close + 1;
      }
    }
  }
  return { attrs: html.slice(from), end: html.length };
}

/** End of a raw-text element: the first `</name` followed by whitespace, "/" or ">" (case-insensitive). */
function findRawTextEnd(html: string, name: string, from: number): { contentEnd: number; after: number } {
  const re = new RegExp(`</${name}(?=[\\s/>])[^>]*>?`, "gi");
  re.lastIndex = from;
  const m = re.exec(html);
  return m ? { contentEnd: m.index, after: re.lastIndex } : { contentEnd: html.length, after: html.length };
}

/** End of an element that may nest (svg in svg, template in template): after its matching end tag, or the end. */
function findElementEnd(html: string, name: string, from: number): number {
  const re = new RegExp(`<(/?)${name}(?=[\\s/>])(?:[^>"']|"[^"]*"|'[^']*')*>`, "gi");
  re.lastIndex = from;
  let depth = 1;
  for (let m = re.exec(html); m; m = re.exec(html)) {
    if (m[1] === "/") depth--;
    else if (!/\/\s*>$/.test(m[0])) depth++;
    if (depth === 0) return re.lastIndex;
  }
  return html.length;
}

function parseAttributes(source: string): Record<string, string> {
  const attrs: Record<string, string> = {};
  ATTRIBUTE.lastIndex = 0;
  for (let m = ATTRIBUTE.exec(source); m; m = ATTRIBUTE.exec(source)) {
    const key = m[1]!.toLowerCase();
    if (!(key in attrs)) attrs[key] = decodeEntities(m[2] ?? m[3] ?? m[4] ?? "", true);
  }
  return attrs;
}

// ---------------------------------------------------------------------------------------------
// Character references

// HTML 4 Latin-1 names, U+00A0..U+00FF in order.
const LATIN1_NAMES =
  "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 acute " +
  "micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde Auml Aring AElig " +
  "Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash " +
  "Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc " +
  "euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml " +
  "yacute thorn yuml";

// The rest of HTML 4 (special and symbol sets, with HTML 5's lang/rang) and frequent HTML 5 names.
const OTHER_NAMES =
  "quot:34 amp:38 lt:60 gt:62 apos:39 QUOT:34 AMP:38 LT:60 GT:62 COPY:169 REG:174 " +
  "OElig:338 oelig:339 Scaron:352 scaron:353 Yuml:376 fnof:402 circ:710 tilde:732 ensp:8194 emsp:8195 thinsp:8201 " +
  "zwnj:8204 zwj:8205 lrm:8206 rlm:8207 ndash:8211 mdash:8212 lsquo:8216 rsquo:8217 sbquo:8218 ldquo:8220 " +
  "rdquo:8221 bdquo:8222 dagger:8224 Dagger:8225 bull:8226 hellip:8230 permil:8240 prime:8242 Prime:8243 " +
  "lsaquo:8249 rsaquo:8250 oline:8254 frasl:8260 euro:8364 image:8465 weierp:8472 real:8476 trade:8482 " +
  "alefsym:8501 larr:8592 uarr:8593 rarr:8594 darr:8595 harr:8596 crarr:8629 lArr:8656 uArr:8657 rArr:8658 " +
  "dArr:8659 hArr:8660 forall:8704 part:8706 exist:8707 empty:8709 nabla:8711 isin:8712 notin:8713 ni:8715 " +
  "prod:8719 sum:8721 minus:8722 lowast:8727 radic:8730 prop:8733 infin:8734 ang:8736 and:8743 or:8744 cap:8745 " +
  "cup:8746 int:8747 there4:8756 sim:8764 cong:8773 asymp:8776 ne:8800 equiv:8801 le:8804 ge:8805 sub:8834 " +
  "sup:8835 nsub:8836 sube:8838 supe:8839 oplus:8853 otimes:8855 perp:8869 sdot:8901 lceil:8968 rceil:8969 " +
  "lfloor:8970 rfloor:8971 lang:10216 rang:10217 loz:9674 spades:9824 clubs:9827 hearts:9829 diams:9830 " +
  "thetasym:977 upsih:978 piv:982 " +
  "Tab:9 NewLine:10 excl:33 num:35 dollar:36 percnt:37 lpar:40 rpar:41 ast:42 plus:43 comma:44 period:46 sol:47 " +
  "colon:58 semi:59 equals:61 quest:63 commat:64 lsqb:91 lbrack:91 bsol:92 rsqb:93 rbrack:93 Hat:94 lowbar:95 " +
  "grave:96 lcub:123 lbrace:123 verbar:124 vert:124 rcub:125 rbrace:125 half:189 centerdot:183 hyphen:8208 " +
  "dash:8208 horbar:8213 Vert:8214 nldr:8229 mldr:8230 bullet:8226 lsquor:8218 rsquor:8217 ldquor:8222 " +
  "rdquor:8221 ZeroWidthSpace:8203 NoBreak:8288 TRADE:8482 copysr:8471 incare:8453 numero:8470 " +
  "frac13:8531 frac23:8532 frac15:8533 frac25:8534 frac35:8535 frac45:8536 frac16:8537 frac56:8538 frac18:8539 " +
  "frac38:8540 frac58:8541 frac78:8542 check:10003 checkmark:10003 cross:10007 star:9734 starf:9733 " +
  "bigstar:9733 phone:9742 female:9792 male:9794 flat:9837 natural:9838 sharp:9839 " +
  "iff:8660 rarrw:8605 heartsuit:9829 spadesuit:9824 clubsuit:9827 " +
  "diamondsuit:9830 sung:9834 pm:177 PlusMinus:177 " +
  "leq:8804 geq:8805 approx:8776 ";

const GREEK =
  "Alpha Beta Gamma Delta Epsilon Zeta Eta Theta Iota Kappa Lambda Mu Nu Xi Omicron Pi Rho _ Sigma Tau Upsilon " +
  "Phi Chi Psi Omega";

const NAMED: ReadonlyMap<string, string> = (() => {
  const map = new Map<string, string>();
  LATIN1_NAMES.split(" ").forEach((name, i) => map.set(name, String.fromCharCode(0xa0 + i)));
  GREEK.split(" ").forEach((name, i) => {
    if (name === "_") return;
    map.set(name, String.fromCharCode(0x391 + i));
    map.set(name.toLowerCase(), String.fromCharCode(0x3b1 + i));
  });
  map.set("sigmaf", "\u03c2");
  for (const pair of OTHER_NAMES.trim().split(/\s+/)) {
    const [name, code] = pair.split(":");
    map.set(name!, String.fromCodePoint(Number(code)));
  }
  return map;
})();

/** Names the HTML parser also accepts without the trailing ";" (legacy; all HTML 4 Latin-1 plus a few). */
const LEGACY: ReadonlySet<string> = new Set([...LATIN1_NAMES.split(" "), "quot", "amp", "lt", "gt", "QUOT", "AMP", "LT", "GT", "COPY", "REG"]);

/** Windows-1252 meanings of C1 numeric references (&#128; is "€"), as the HTML spec requires. */
const C1: Record<number, number> = {
  0x80: 0x20ac, 0x82: 0x201a, 0x83: 0x0192, 0x84: 0x201e, 0x85: 0x2026, 0x86: 0x2020, 0x87: 0x2021, 0x88: 0x02c6,
  0x89: 0x2030, 0x8a: 0x0160, 0x8b: 0x2039, 0x8c: 0x0152, 0x8e: 0x017d, 0x91: 0x2018, 0x92: 0x2019, 0x93: 0x201c,
  0x94: 0x201d, 0x95: 0x2022, 0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02dc, 0x99: 0x2122, 0x9a: 0x0161, 0x9b: 0x203a,
  0x9c: 0x0153, 0x9e: 0x017e, 0x9f: 0x0178,
};

/** Every name decodeEntities knows (for tests against a reference decoder). */
export function entityNames(): string[] {
  return [...NAMED.keys()];
}

const REFERENCE = /&(?:#[xX]([0-9a-fA-F]{1,8});?|#([0-9]{1,10});?|([a-zA-Z][a-zA-Z0-9]{1,31})(;?))/g;

/**
 * Decodes character references: all numeric ones (with the HTML spec's replacements) and the
 * named ones in the table above. Unknown names stay as written. In attribute values a legacy name
 * without ";" followed by a letter, digit or "=" is left alone (`?a=1&copy=2`).
 */
export function decodeEntities(text: string, inAttribute: boolean): string {
  if (!text.includes("&")) return text;
  return text.replace(REFERENCE, (whole: string, hex?: string, dec?: string, name?: string, semi?: string, offset?: number) => {
    if (hex !== undefined || dec !== undefined) return codePoint(hex !== undefined ? parseInt(hex, 16) : Number(dec));
    if (semi) {
      const value = NAMED.get(name!);
      if (value !== undefined) return value;
    }
    // Without ";": the longest legacy name that prefixes the run of letters (&copy2024 -> ©2024).
    for (let len = Math.min(name!.length, 6); len >= 2; len--) {
      const prefix = name!.slice(0, len);
      if (!LEGACY.has(prefix)) continue;
      const next = len < name!.length ? name![len]! : (text[offset! + whole.length] ?? "");
      if (inAttribute && /[a-zA-Z0-9=]/.test(next)) return whole;
      return NAMED.get(prefix)! + whole.slice(1 + len);
    }
    return whole;
  });
}

function codePoint(n: number): string {
  if (n === 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff) || !Number.isFinite(n)) return "\ufffd";
  return String.fromCodePoint(C1[n] ?? n);
}
