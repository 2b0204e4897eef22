import { readdir, readFile, stat } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import {
  createDeadline,
  MediaToolError,
  runTool,
  throwIfAborted,
  throwIfExpired,
  toolBinary,
  withTempDir,
  type MediaToolPaths,
} from "@/lib/media/tools";
import { errorMessage } from "@/lib/core/errors";

/**
 * Text and embedded images of a PDF, with poppler-utils:
 * - `pdfinfo` → page count (and fails fast on a malformed file);
 * - `pdftotext -enc UTF-8` in its default reading-order mode (not `-layout`: layout mode pads columns with
 *   runs of spaces and interleaves side-by-side columns line by line, which reads worse for classifiers);
 *   pages are separated by form feeds, which gives `pageTexts`;
 * - `pdfimages -list` to choose images (real images only — soft masks, stencil masks and repeats of the same
 *   image object are left out — at least 16×16 px, first `maxImages` in page order), then
 *   `pdfimages -png -j -p` on the page range holding them. Note: not `-all`: with `-j` JPEGs come out
 *   byte-for-byte as embedded and with `-png` poppler itself decodes everything else (Flate, JBIG2,
 *   CCITT fax, JPEG 2000, CMYK) to PNG. With `-all` those would come out as .jb2e/.ccitt/.jp2/.tif,
 *   which sharp cannot read (its prebuilt libvips has no JPEG 2000/JBIG2/CCITT), so scanned pages would be
 *   lost. Any other extension met is converted to PNG with sharp when it can decode it, else skipped.
 */

export interface PdfImage {
  /** 1-based page number. */
  page: number;
  /** pdfimages' image number within the document (0-based, counts every image including masks). */
  index: number;
  mimeType: "image/jpeg" | "image/png";
  data: Buffer;
  width: number;
  height: number;
}

export interface PdfSkippedImage {
  page: number;
  index: number;
  reason: "undecodable" | "too-large";
}

export interface PdfImageStats {
  /** Rows in `pdfimages -list` (every placement, masks included). */
  listed: number;
  masks: number;
  duplicates: number;
  tooSmall: number;
  /** Eligible images left out because of `maxImages`. */
  overLimit: number;
  undecodable: number;
  tooLarge: number;
}

export interface PdfExtraction {
  pageCount: number;
  /** All text, pages separated by a blank line. */
  text: string;
  /** Text per page (index 0 = page 1); shorter than pageCount when the text was truncated. */
  pageTexts: string[];
  /** Text exceeded `maxTextBytes` and was cut. */
  textTruncated: boolean;
  images: PdfImage[];
  /** Chosen images that could not be returned (bounded by maxImages). */
  skippedImages: PdfSkippedImage[];
  imageStats: PdfImageStats;
}

export interface ExtractPdfOptions {
  /** Default 20. 0 skips image extraction. */
  maxImages?: number;
  /** Per image, default 8 MiB. Bigger images are re-encoded as JPEG (≤ 2048 px) and skipped only if still too big. */
  maxImageBytes?: number;
  /** Text cap in bytes of UTF-8 (default 4 MiB); more is cut, with `textTruncated`. */
  maxTextBytes?: number;
  /** Images smaller than this in either dimension are ignored (default 16). */
  minImageSize?: number;
  signal?: AbortSignal;
  /** Whole operation. Default 60 s. */
  timeoutMs?: number;
  tools?: MediaToolPaths;
}

export interface ListedImage {
  page: number;
  num: number;
  type: string;
  width: number;
  height: number;
  /** "12 0", or "inline" */
  objectId: string;
}

const LIST_ROW =
  /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(\d+)\s+(\d+)\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+(?:(\d+)\s+(\d+)|\[inline\])(?:\s|$)/;

/** Parse `pdfimages -list` output (poppler 0.2x–24.x column layout). */
export function parsePdfImagesList(output: string): ListedImage[] {
  const rows: ListedImage[] = [];
  for (const line of output.split("\n")) {
    const m = LIST_ROW.exec(line);
    if (!m) continue;
    rows.push({
      page: Number(m[1]),
      num: Number(m[2]),
      type: m[3]!,
      width: Number(m[4]),
      height: Number(m[5]),
      objectId: m[6] !== undefined ? `${m[6]} ${m[7]}` : "inline",
    });
  }
  return rows;
}

/** Parse "Pages: N" from pdfinfo. */
function parsePageCount(output: string): number | undefined {
  const m = /^Pages:\s+(\d+)\s*$/m.exec(output);
  return m ? Number(m[1]) : undefined;
}

/** A file path poppler cannot mistake for an option. */
function popplerPath(filePath: string): string {
  return path.resolve(filePath);
}

const OUTPUT_NAME = /^img-(\d+)-(\d+)\.([a-z0-9]+)$/i;
const MAX_REENCODE_DIMENSION = 2048;

/**
 * Extract text and images from a PDF. Errors: "failed" (malformed/encrypted PDF: poppler's message is in
 * `stderrTail`), "invalid-input" (file missing), "timeout", "aborted", "missing-tool".
 */
export async function extractPdf(filePath: string, options: ExtractPdfOptions = {}): Promise<PdfExtraction> {
  const deadline = createDeadline(options.timeoutMs ?? 60_000);
  const maxImages = Math.max(0, Math.floor(options.maxImages ?? 20));
  const maxImageBytes = options.maxImageBytes ?? 8 * 1024 * 1024;
  const maxTextBytes = options.maxTextBytes ?? 4 * 1024 * 1024;
  const minSize = options.minImageSize ?? 16;
  const file = popplerPath(filePath);
  try {
    if (!(await stat(file)).isFile()) throw new Error("not a regular file");
  } catch (error) {
    throw new MediaToolError("invalid-input", `cannot read PDF: ${errorMessage(error)}`, { cause: error });
  }

  // Siblings run in parallel; if one fails the others are killed through this controller.
  const controller = new AbortController();
  const onOuterAbort = (): void => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onOuterAbort();
  options.signal?.addEventListener("abort", onOuterAbort, { once: true });
  const run = (tool: "pdfinfo" | "pdftotext" | "pdfimages", args: string[], extra: { maxStdoutBytes?: number; stdoutOverflow?: "error" | "truncate" } = {}) =>
    runTool(toolBinary(tool, options.tools), args, { signal: controller.signal, timeoutMs: deadline.remaining(), ...extra }).catch((error: unknown) => {
      // Kill the sibling runs; Promise.all reports this first error.
      controller.abort();
      throw error;
    });

  try {
    const info = await run("pdfinfo", [file], { maxStdoutBytes: 1024 * 1024 });
    const pageCount = parsePageCount(info.stdout.toString("utf8"));
    if (pageCount === undefined) throw new MediaToolError("failed", "pdfinfo did not report a page count", { tool: "pdfinfo", stderrTail: info.stderr });

    const [textRun, listRun] = await Promise.all([
      run("pdftotext", ["-enc", "UTF-8", "-eol", "unix", file, "-"], { maxStdoutBytes: maxTextBytes, stdoutOverflow: "truncate" }),
      maxImages > 0 ? run("pdfimages", ["-list", file], { maxStdoutBytes: 16 * 1024 * 1024, stdoutOverflow: "truncate" }) : Promise.resolve(undefined),
    ]);

    // Drop a partial UTF-8 sequence left by truncation.
    const rawText = textRun.stdout.toString("utf8").replace(/\uFFFD+$/, "");
    const pageTexts = rawText.split("\f").map((t) => t.replace(/\s+$/, ""));
    // pdftotext ends every page with \f, so the piece after the last one is empty unless truncated.
    if (!textRun.truncated && pageTexts.length > pageCount) pageTexts.length = pageCount;
    const text = pageTexts.filter((t) => t.trim() !== "").join("\n\n");

    const stats: PdfImageStats = { listed: 0, masks: 0, duplicates: 0, tooSmall: 0, overLimit: 0, undecodable: 0, tooLarge: 0 };
    const images: PdfImage[] = [];
    const skippedImages: PdfSkippedImage[] = [];

    if (listRun) {
      const rows = parsePdfImagesList(listRun.stdout.toString("utf8"));
      stats.listed = rows.length;
      const seen = new Set<string>();
      const chosen: ListedImage[] = [];
      for (const row of rows) {
        if (row.type !== "image") {
          stats.masks++;
          continue;
        }
        if (row.objectId !== "inline") {
          if (seen.has(row.objectId)) {
            stats.duplicates++;
            continue;
          }
          seen.add(row.objectId);
        }
        if (row.width < minSize || row.height < minSize) {
          stats.tooSmall++;
          continue;
        }
        if (chosen.length >= maxImages) {
          stats.overLimit++;
          continue;
        }
        chosen.push(row);
      }

      if (chosen.length > 0) {
        const firstPage = chosen[0]!.page;
        const lastPage = chosen.at(-1)!.page;
        // pdfimages numbers images from 0 at the first page it processes: shift back to document numbering.
        const numOffset = rows.filter((r) => r.page < firstPage).length;
        await withTempDir(async (dir) => {
          await run("pdfimages", ["-png", "-j", "-p", "-f", String(firstPage), "-l", String(lastPage), file, path.join(dir, "img")], {
            maxStdoutBytes: 64 * 1024,
          });
          const byNum = new Map<number, string>();
          for (const name of await readdir(dir)) {
            const m = OUTPUT_NAME.exec(name);
            if (m) byNum.set(Number(m[2]) + numOffset, name);
          }
          for (const row of chosen) {
            throwIfAborted(options.signal, "PDF extraction");
            throwIfExpired(deadline, "PDF extraction");
            const name = byNum.get(row.num);
            const image = name ? await loadImage(path.join(dir, name), row, maxImageBytes) : "undecodable";
            if (typeof image === "string") {
              skippedImages.push({ page: row.page, index: row.num, reason: image });
              if (image === "undecodable") stats.undecodable++;
              else stats.tooLarge++;
            } else {
              images.push(image);
            }
          }
        });
      }
    }

    return { pageCount, text, pageTexts, textTruncated: textRun.truncated, images, skippedImages, imageStats: stats };
  } finally {
    options.signal?.removeEventListener("abort", onOuterAbort);
    controller.abort();
  }
}

async function loadImage(file: string, row: ListedImage, maxBytes: number): Promise<PdfImage | "undecodable" | "too-large"> {
  const ext = path.extname(file).slice(1).toLowerCase();
  let data: Buffer;
  try {
    data = await readFile(file);
  } catch {
    return "undecodable";
  }
  let mimeType: PdfImage["mimeType"];
  let width: number;
  let height: number;
  try {
    if (ext === "jpg" || ext === "jpeg" || ext === "png") {
      const meta = await sharp(data).metadata();
      if (!meta.width || !meta.height) return "undecodable";
      // Full decode check: a JPEG with a valid header can still be corrupt.
      await sharp(data).stats();
      mimeType = ext === "png" ? "image/png" : "image/jpeg";
      width = meta.width;
      height = meta.height;
    } else {
      const { data: png, info } = await sharp(data).png().toBuffer({ resolveWithObject: true });
      data = png;
      mimeType = "image/png";
      width = info.width;
      height = info.height;
    }
  } catch {
    return "undecodable";
  }
  if (data.length > maxBytes) {
    try {
      const { data: jpeg, info } = await sharp(data)
        .resize({ width: MAX_REENCODE_DIMENSION, height: MAX_REENCODE_DIMENSION, fit: "inside", withoutEnlargement: true })
        .flatten({ background: "#ffffff" })
        .jpeg({ quality: 85 })
        .toBuffer({ resolveWithObject: true });
      if (jpeg.length > maxBytes) return "too-large";
      data = jpeg;
      mimeType = "image/jpeg";
      width = info.width;
      height = info.height;
    } catch {
      return "too-large";
    }
  }
  return { page: row.page, index: row.num, mimeType, data, width, height };
}
