import { WorkerHostError } from "@/lib/core/worker-host";
import { isOcrError, OcrError } from "./ocr-errors";
import { preprocessForOcr } from "./ocr-preprocess";
import { DEFAULT_MIN_WORD_CONFIDENCE, ocrResult, pageResult, type OcrResult } from "./ocr-text";
import { createTesseractHost, recognizePng } from "./tesseract-worker";

/**
 * The OCR engine: each request's budget (timeout and caller cancellation as OcrErrors), its turn
 * in call order, preprocessing while it waits, then recognition on the Tesseract worker.
 */

export interface OcrOptions {
  /** Caller cancellation; rejects with OcrError "aborted". */
  signal?: AbortSignal;
  /** Budget for the whole call (preprocessing, waiting in the queue, worker start, recognition). */
  timeoutMs: number;
  /**
   * Words Tesseract is less sure of (0..100) are dropped, as are words without a letter or digit.
   * Photos without text come back as low-confidence junk ("SHES ya <3 Taal RE"); real text scores
   * 80-96 even when small. Default 60; 0 keeps every word.
   */
  minWordConfidence?: number;
}

export interface OcrEngineInfo {
  state: "stopped" | "starting" | "ready";
  /** Workers started so far in this process. */
  starts: number;
  /** Workers terminated because a request timed out or was aborted during recognition. */
  killedForTimeout: number;
  /** How long the last successful start took (spawn, wasm compile, model load, init). */
  lastLoadMs: number | null;
}

const MAX_TIMER_MS = 2_147_483_647;

export class OcrEngine {
  readonly #host = createTesseractHost();
  #tail: Promise<void> = Promise.resolve();

  info(): OcrEngineInfo {
    const host = this.#host.info();
    return { state: host.state, starts: host.starts, killedForTimeout: host.abandoned, lastLoadMs: host.lastStartMs };
  }

  async warmUp(): Promise<void> {
    await this.#host.warmUp().catch(rethrowAsOcrError);
  }

  /**
   * Running requests fail with "shut-down"; queued and later ones start a new worker. Returns
   * without waiting for the thread to exit, so a caller that awaits this and then the failed
   * request handles that failure within the same tick (no unhandled rejection in between).
   */
  async shutdown(): Promise<void> {
    void this.#host.shutdown();
  }

  async recognize(image: Uint8Array, options: OcrOptions): Promise<OcrResult> {
    const job = jobSignal(options);
    const ticket = this.#reserve();
    try {
      // Preprocessing starts at once and overlaps with earlier requests; invalid and blank images
      // settle without waiting for their turn.
      const prepared = await raceSignal(preprocessForOcr(image), job.signal);
      if (prepared.blank || !prepared.png) return ocrResult("", 0);
      await raceSignal(ticket.turn, job.signal);
      const page = await recognizePng(this.#host, prepared.png, job.signal).catch(rethrowAsOcrError);
      return pageResult(page, options.minWordConfidence ?? DEFAULT_MIN_WORD_CONFIDENCE);
    } finally {
      ticket.release();
      job.dispose();
    }
  }

  /** A FIFO slot: `turn` resolves when every earlier request has released its slot. */
  #reserve(): { turn: Promise<void>; release(): void } {
    const turn = this.#tail;
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    this.#tail = turn.then(() => done);
    return { turn, release };
  }
}

/** The worker host's failures as OcrErrors; the job signal's reasons already are. */
function rethrowAsOcrError(error: unknown): never {
  if (!(error instanceof WorkerHostError)) throw error;
  if (isOcrError(error.cause)) throw error.cause; // e.g. no language data, found while starting
  if (error.code === "shut-down") throw new OcrError("shut-down", "The OCR engine was shut down.", { cause: error });
  if (error.code === "failed") throw new OcrError("engine-failed", `Tesseract failed: ${error.message}`, { cause: error });
  throw new OcrError("engine-failed", error.message, { cause: error });
}

function jobSignal(options: OcrOptions): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const timeoutMs = Number.isFinite(options.timeoutMs) ? Math.min(Math.max(1, options.timeoutMs), MAX_TIMER_MS) : MAX_TIMER_MS;
  const timer = setTimeout(
    () => controller.abort(new OcrError("timeout", `OCR did not finish within ${options.timeoutMs} ms.`)),
    timeoutMs,
  );
  const outer = options.signal;
  const onAbort = () =>
    controller.abort(new OcrError("aborted", "OCR was cancelled by the caller.", { cause: outer?.reason }));
  if (outer?.aborted) onAbort();
  else outer?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onAbort);
    },
  };
}

/** Settles like `promise`, or rejects with the signal's reason when it aborts first. */
function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
