import type Tesseract from "tesseract.js";

/** From Tesseract's page output to our result: the confident words, laid out in lines and paragraphs. */

export const OCR_ENGINE = "tesseract.js-7.0.0-eng-4.0.0_best_int";

export const DEFAULT_MIN_WORD_CONFIDENCE = 60;

export interface OcrResult {
  /** Recognized text: lines joined by "\n", paragraphs by a blank line; "" when nothing was found. */
  text: string;
  /** Mean Tesseract confidence of the words in `text`, 0..100 (0 when there is no text). */
  confidence: number;
  /** Number of words in `text`. */
  words?: number;
  engine: typeof OCR_ENGINE;
}

/**
 * Rebuilds the text from Tesseract's TSV output (one row per block, paragraph, line and word; cheaper
 * to produce and pass between threads than the `blocks` object tree), keeping only confident words
 * with a letter or digit. Lines are joined by "\n", paragraphs and blocks by a blank line.
 */
export function pageResult(page: Pick<Tesseract.Page, "tsv">, minConfidence: number): OcrResult {
  const paragraphs: string[][] = [];
  let line: string[] = [];
  let lineKey = "";
  let paragraphKey = "";
  let kept = 0;
  let confidenceSum = 0;
  const flushLine = () => {
    if (line.length > 0) paragraphs.at(-1)!.push(line.join(" "));
    line = [];
  };
  for (const row of (page.tsv ?? "").split("\n")) {
    // level page block paragraph line word left top width height conf text
    const cells = row.split("\t");
    if (cells[0] !== "5" || cells.length < 12) continue;
    const text = cells.slice(11).join("\t").trim();
    const confidence = Math.min(100, Math.max(0, Number(cells[10]) || 0));
    if (!text || confidence < minConfidence || !/[\p{L}\p{N}]/u.test(text)) continue;
    const pKey = `${cells[1]}/${cells[2]}/${cells[3]}`;
    const lKey = `${pKey}/${cells[4]}`;
    if (pKey !== paragraphKey) {
      flushLine();
      paragraphs.push([]);
      paragraphKey = pKey;
    } else if (lKey !== lineKey) {
      flushLine();
    }
    lineKey = lKey;
    line.push(text);
    kept++;
    confidenceSum += confidence;
  }
  flushLine();
  const text = paragraphs.map((lines) => lines.join("\n")).join("\n\n");
  return ocrResult(text, kept > 0 ? Math.round((confidenceSum / kept) * 10) / 10 : 0, kept);
}

export function ocrResult(text: string, confidence: number, words = 0): OcrResult {
  return { text, confidence, words, engine: OCR_ENGINE };
}
