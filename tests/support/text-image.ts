import sharp from "sharp";

/**
 * Renders text to a PNG for OCR tests: an SVG with one <text> line per "\n"-separated line, drawn
 * by sharp (librsvg) with the system's DejaVu Sans (Debian fonts-dejavu-core). Nothing is fetched.
 */
export interface TextImageOptions {
  /** Image width in pixels; default fits the longest line. */
  width?: number;
  /** Font size in pixels; default 32. */
  fontSize?: number;
  /** Text colour; default black. */
  color?: string;
  /** Background colour; "none" leaves it transparent. Default white. */
  background?: string;
}

export async function makeTextImage(text: string, options: TextImageOptions = {}): Promise<Buffer> {
  const fontSize = options.fontSize ?? 32;
  const lines = text.split("\n");
  const padding = Math.max(4, Math.round(fontSize * 0.6));
  const lineHeight = Math.round(fontSize * 1.4);
  const longest = Math.max(1, ...lines.map((line) => line.length));
  // DejaVu Sans averages well under 0.65 em per character for mixed-case text.
  const width = Math.round(options.width ?? longest * fontSize * 0.65 + 2 * padding);
  const height = Math.round(lines.length * lineHeight + 2 * padding);
  const background = options.background ?? "white";

  const rows = lines
    .map((line, i) => {
      const y = padding + i * lineHeight + Math.round(fontSize * 1.05);
      return `<text x="${padding}" y="${y}">${escapeXml(line)}</text>`;
    })
    .join("");
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
    (background === "none" ? "" : `<rect width="100%" height="100%" fill="${escapeXml(background)}"/>`) +
    `<g font-family="DejaVu Sans" font-size="${fontSize}" fill="${escapeXml(options.color ?? "black")}">${rows}</g>` +
    `</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

function escapeXml(value: string): string {
  return value.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
