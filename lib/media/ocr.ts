import { existingSingleton, processSingleton } from "@/lib/core/singleton";
import { OcrEngine, type OcrEngineInfo, type OcrOptions } from "./ocr-engine";
import type { OcrResult } from "./ocr-text";

/**
 * OCR for the moderation pipeline: tesseract.js 7 (Tesseract 5 LSTM compiled to wasm) with the
 * English `4.0.0_best_int` model from `@tesseract.js-data/eng`. Nothing is downloaded, ever (see
 * tesseract-worker.ts).
 *
 * One long-lived tesseract worker (a worker_thread) per process, started lazily or by
 * `warmUpOcr()`. Requests run one at a time in call order; images are preprocessed with sharp in
 * parallel while they wait. A request that times out or is aborted while the worker is recognizing
 * its image terminates the worker (Tesseract cannot be interrupted, and its next job would only
 * start after the abandoned one), so later requests get a fresh worker. A worker that dies is
 * replaced the same way. Waiting for a worker to start does not kill the start: the next request
 * benefits from it.
 *
 * The parts: ocr-preprocess.ts (image preparation), ocr-engine.ts (budget and call order),
 * tesseract-worker.ts (the worker thread and its protocol), ocr-text.ts (TSV to text and
 * confidence), ocr-errors.ts.
 */

export { DEFAULT_MIN_WORD_CONFIDENCE, OCR_ENGINE, type OcrResult } from "./ocr-text";
export { isOcrError, OcrError, type OcrErrorCode } from "./ocr-errors";
export { MAX_INPUT_PIXELS, preprocessForOcr, type PreparedImage } from "./ocr-preprocess";
export type { OcrEngineInfo, OcrOptions } from "./ocr-engine";

const ENGINE = "media.ocr.engine";
const engine = () => processSingleton(ENGINE, () => new OcrEngine());

/** Recognizes English text in an image (any format sharp decodes; first page/frame only). */
export async function recognizeText(image: Uint8Array, options: OcrOptions): Promise<OcrResult> {
  return engine().recognize(image, options);
}

/** Starts the worker now (e.g. at server start) instead of on the first request. */
export async function warmUpOcr(): Promise<void> {
  await engine().warmUp();
}

/**
 * Terminates the worker. Requests running at that moment fail with "shut-down"; queued and later
 * requests start a new worker, so this is also safe to call between test files.
 */
export async function shutdownOcr(): Promise<void> {
  await existingSingleton<OcrEngine>(ENGINE)?.shutdown();
}

export function ocrEngineInfo(): OcrEngineInfo {
  return engine().info();
}
