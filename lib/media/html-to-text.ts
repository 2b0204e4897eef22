import { decodeEntities } from "./html-entities";

/** The visible text, title and description of an HTML page (or of plain text), without an HTML library. */

export const DEFAULT_MAX_TEXT_CHARS = 200_000;

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

/** The same result for a text/plain page: whitespace tidied, cut at maxChars. */
export function plainText(decoded: string, maxChars: number): HtmlText {
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
