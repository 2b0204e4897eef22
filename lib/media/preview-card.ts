import sharp from "sharp";
import { encodePreview, type RenderedPreview } from "./preview";

/**
 * A website's preview: a card drawn here from the page's own text (title, host, first lines), not
 * the page's og:image or twitter:image — fetching those would let any page make the server request
 * a URL of its choosing (SSRF) and tell a third party who looked. The card is an SVG rendered by
 * sharp (librsvg) with DejaVu Sans, 1024×640. Text is measured by an estimate of the glyph widths,
 * so wrapping is approximate; nothing from the page is ever interpreted as markup.
 */

export const CARD_WIDTH = 1024;
export const CARD_HEIGHT = 640;
const MARGIN = 48;
const FONT = "DejaVu Sans, sans-serif";
const TITLE = { size: 40, lineHeight: 52, maxLines: 2, top: 150, em: 0.66 };
const BODY = { size: 24, lineHeight: 34, em: 0.56 };

export interface WebsiteCard {
  title: string | null;
  /** The page's host (from its URL), if known. */
  host: string | null;
  /** Visible text; only what fits is drawn. */
  text: string;
}

/** Characters XML 1.0 does not allow at all (librsvg would refuse the whole card), and lone surrogates. */
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

export function escapeXml(text: string): string {
  return text.replace(NOT_XML, "").replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Width in ems of one character: CJK and other wide scripts take about twice a Latin letter. */
function charWidth(ch: string, em: number): number {
  const code = ch.codePointAt(0)!;
  if (code >= 0x1100 && (code <= 0x115f || (code >= 0x2e80 && code <= 0xa4cf) || (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) || (code >= 0xff00 && code <= 0xff60) || code >= 0x1f300)) {
    return 1;
  }
  return em;
}

/**
 * Greedy word wrap into at most `maxLines` lines of `width` px; a word longer than a line is cut,
 * and text left over ends the last line with "…".
 */
export function wrapText(text: string, fontSize: number, em: number, width: number, maxLines: number): string[] {
  const lines: string[] = [];
  const limit = width / fontSize;
  const words = text.replace(/\s+/g, " ").trim().split(" ").filter(Boolean);
  let line = "";
  let lineWidth = 0;
  let i = 0;
  const push = (): boolean => {
    lines.push(line);
    line = "";
    lineWidth = 0;
    return lines.length < maxLines;
  };
  outer: for (; i < words.length; i++) {
    const word = words[i]!;
    const space = line ? em : 0;
    const wordWidth = [...word].reduce((sum, ch) => sum + charWidth(ch, em), 0);
    if (lineWidth + space + wordWidth <= limit) {
      line += (line ? " " : "") + word;
      lineWidth += space + wordWidth;
      continue;
    }
    if (line && !push()) break;
    for (const ch of word) {
      const w = charWidth(ch, em);
      if (lineWidth + w > limit && !push()) break outer;
      line += ch;
      lineWidth += w;
    }
  }
  const complete = i >= words.length;
  if (line && lines.length < maxLines) lines.push(line);
  if (!complete && lines.length > 0) {
    let last = lines[lines.length - 1]!;
    while (last && [...last].reduce((sum, ch) => sum + charWidth(ch, em), 0) + em > limit) last = [...last].slice(0, -1).join("");
    lines[lines.length - 1] = `${last.trimEnd()}…`;
  }
  return lines;
}

/** The card as SVG source (exported for tests). */
export function websiteCardSvg(card: WebsiteCard): string {
  const textWidth = CARD_WIDTH - 2 * MARGIN;
  // Far more than fits: the wrap never walks a whole 200 000-character page.
  const title = wrapText(card.title?.slice(0, 1000).trim() || card.host || "Web page", TITLE.size, TITLE.em, textWidth, TITLE.maxLines);
  // The body starts right under the title, whether it took one line or two.
  const bodyTop = TITLE.top + (title.length - 1) * TITLE.lineHeight + 24 + BODY.lineHeight;
  const bodyLines = Math.floor((CARD_HEIGHT - 28 - bodyTop) / BODY.lineHeight) + 1;
  const body = wrapText(card.text.slice(0, 5000), BODY.size, BODY.em, textWidth, bodyLines);
  const tspans = (lines: string[], top: number, lineHeight: number) =>
    lines.map((line, n) => `<tspan x="${MARGIN}" y="${top + n * lineHeight}">${escapeXml(line)}</tspan>`).join("");
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${CARD_WIDTH}" height="${CARD_HEIGHT}" viewBox="0 0 ${CARD_WIDTH} ${CARD_HEIGHT}">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<rect width="100%" height="72" fill="#f1f3f5"/>`,
    `<rect y="72" width="100%" height="2" fill="#dee2e6"/>`,
    `<text font-family="${FONT}" font-size="24" fill="#495057">${tspans(wrapText(card.host ?? "", 24, BODY.em, textWidth, 1), 46, 0)}</text>`,
    `<text font-family="${FONT}" font-size="${TITLE.size}" font-weight="bold" fill="#212529">${tspans(title, TITLE.top, TITLE.lineHeight)}</text>`,
    `<text font-family="${FONT}" font-size="${BODY.size}" fill="#343a40">${tspans(body, bodyTop, BODY.lineHeight)}</text>`,
    `</svg>`,
  ].join("");
}

/** The card as a 1024×640 WebP preview. */
export function websiteCardPreview(card: WebsiteCard): Promise<RenderedPreview> {
  return encodePreview(sharp(Buffer.from(websiteCardSvg(card), "utf8")));
}
