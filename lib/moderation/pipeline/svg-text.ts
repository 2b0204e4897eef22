import { decodeTextForAnalysis } from "../text/decode";

/**
 * The text an SVG shows or carries (`<text>`, `<title>`, `<desc>`, …), judged on the text path
 * besides the rendered image: words drawn as vector glyphs are content too. Markup, comments and
 * the DOCTYPE are dropped; the predefined XML entities and character references are decoded.
 * Entities declared in an internal DTD are left as written (they are not expanded here).
 */
const NAMED: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

export function svgText(bytes: Buffer): string | null {
  const xml = decodeTextForAnalysis(bytes).text;
  const text = xml
    .replace(/<!DOCTYPE[^[>]*(\[[\s\S]*?\])?\s*>/gi, " ")
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, "$1")
    .replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
      if (ref[0] !== "#") return NAMED[ref.toLowerCase()] ?? whole;
      const code = ref[1] === "x" || ref[1] === "X" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : " ";
    })
    .replace(/\s+/g, " ")
    .trim();
  return text.length > 0 ? text : null;
}
