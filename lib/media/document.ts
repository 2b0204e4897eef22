import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { createDeadline, MediaToolError, runTool, toolBinary, withTempDir, type MediaToolPaths } from "@/lib/media/tools";

/**
 * Text and embedded images of word-processing documents and e-books (DOCX, ODT, EPUB, RTF), with
 * pandoc (Debian `pandoc`): `-t plain --wrap=none` gives the text in reading order, and
 * `--extract-media` writes the embedded images, which are kept as JPEG/PNG (other formats are
 * converted to PNG with sharp; what sharp cannot decode, and images under 16×16 px, are skipped).
 * PDFs go through lib/media/pdf.ts; legacy binary Office files (.doc) are not readable by pandoc.
 */
export const PANDOC_FORMATS: Readonly<Record<string, string>> = {
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.oasis.opendocument.text": "odt",
  "application/epub+zip": "epub",
  "application/rtf": "rtf",
  "text/rtf": "rtf",
};

export interface DocumentImage {
  index: number;
  mimeType: "image/jpeg" | "image/png";
  data: Buffer;
  width: number;
  height: number;
}

export interface DocumentExtraction {
  format: string;
  text: string;
  textTruncated: boolean;
  images: DocumentImage[];
  skippedImages: number;
}

export interface ExtractDocumentOptions {
  maxImages?: number;
  maxTextBytes?: number;
  maxImageBytes?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
  tools?: MediaToolPaths;
}

async function filesBelow(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? filesBelow(path.join(dir, e.name)) : Promise.resolve(e.isFile() ? [path.join(dir, e.name)] : []))),
  );
  return nested.flat().sort();
}

async function keepImage(file: string, maxBytes: number): Promise<Omit<DocumentImage, "index"> | null> {
  const bytes = await readFile(file);
  if (bytes.length > maxBytes) return null;
  try {
    const meta = await sharp(bytes, { limitInputPixels: 100_000_000 }).metadata();
    if (!meta.width || !meta.height || meta.width < 16 || meta.height < 16) return null;
    if (meta.format === "jpeg" || meta.format === "png") return { mimeType: `image/${meta.format}`, data: bytes, width: meta.width, height: meta.height };
    const png = await sharp(bytes).png().toBuffer();
    return { mimeType: "image/png", data: png, width: meta.width, height: meta.height };
  } catch {
    return null; // not an image sharp can read (e.g. WMF/EMF drawings)
  }
}

export async function extractDocument(filePath: string, mimeType: string, options: ExtractDocumentOptions = {}): Promise<DocumentExtraction> {
  const format = PANDOC_FORMATS[mimeType];
  if (!format) throw new MediaToolError("invalid-input", `no text extraction for ${mimeType} documents`);
  const deadline = createDeadline(options.timeoutMs ?? 60_000);
  const maxImages = options.maxImages ?? 20;
  const maxTextBytes = options.maxTextBytes ?? 4 * 1024 * 1024;
  return withTempDir(async (dir) => {
    const media = path.join(dir, "media");
    const result = await runTool(
      toolBinary("pandoc", options.tools),
      ["--sandbox", "-f", format, "-t", "plain", "--wrap=none", `--extract-media=${media}`, "--", filePath],
      { timeoutMs: deadline.remaining(), signal: options.signal, maxStdoutBytes: maxTextBytes, stdoutOverflow: "truncate" },
    );
    const images: DocumentImage[] = [];
    let skippedImages = 0;
    for (const file of await filesBelow(media)) {
      if (images.length >= maxImages) {
        skippedImages++;
        continue;
      }
      const image = await keepImage(file, options.maxImageBytes ?? 8 * 1024 * 1024);
      if (image) images.push({ ...image, index: images.length });
      else skippedImages++;
    }
    // pandoc marks images in plain text as "[image]"-like placeholders; they carry no meaning.
    const text = result.stdout.toString("utf8").replace(/\uFFFD+$/, "").trim();
    return { format, text, textTruncated: result.truncated, images, skippedImages };
  }, "sieve-doc-");
}
