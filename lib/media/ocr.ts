import path from "node:path";
import fs from "node:fs";
import type { Worker as ThreadWorker } from "node:worker_threads";
import sharp, { type Metadata, type Sharp } from "sharp";
import Tesseract from "tesseract.js";

/**
 * OCR for the moderation pipeline: tesseract.js 7 (Tesseract 5 LSTM compiled to wasm) with the
 * English `4.0.0_best_int` model from `@tesseract.js-data/eng`.
 *
 * Nothing is downloaded, ever: `langPath` is the data package's local folder (a path, not a URL, so
 * tesseract.js reads it with fs), `cacheMethod: "none"` neither reads nor writes a cache, and in Node
 * the wasm core is `require`d from the `tesseract.js-core` package, which reads its `.wasm` file
 * next to itself (`corePath` is ignored in Node). Verified by running the engine with no network
 * interface at all (`unshare -n`).
 *
 * One long-lived tesseract worker (a worker_thread) per process, started lazily or by
 * `warmUpOcr()`. Requests run one at a time in call order; images are preprocessed with sharp in
 * parallel while they wait. A request that times out or is aborted while the worker is recognizing
 * its image terminates the worker (Tesseract cannot be interrupted, and its next job would only
 * start after the abandoned one), so later requests get a fresh worker. A worker that dies is
 * replaced the same way. Waiting for a worker to start does not kill the start: the next request
 * benefits from it.
 *
 * Bundling: tesseract.js spawns `new Worker(<its own src/worker-script/node/index.js>)` and the
 * worker `require`s tesseract.js-core, so tesseract.js must stay outside the Next.js bundle
 * (`serverExternalPackages: ["tesseract.js"]`). The language folder is located at run time without
 * a bundler-visible `require.resolve` (or with `SIEVE_OCR_LANG_PATH`).
 */

export const OCR_ENGINE = "tesseract.js-7.0.0-eng-4.0.0_best_int";

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

export type OcrErrorCode =
  /** The bytes are not an image sharp can decode (or it is empty / zero-sized). */
  | "invalid-image"
  /** More than MAX_INPUT_PIXELS pixels: refused before decoding (decompression bombs). */
  | "image-too-large"
  | "timeout"
  | "aborted"
  /** The worker failed to start, died or reported an error. The next call starts a new one. */
  | "engine-failed"
  /** shutdownOcr() stopped the worker while this request was running. */
  | "shut-down";

export class OcrError extends Error {
  override readonly name = "OcrError";
  constructor(
    readonly code: OcrErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}

export function isOcrError(error: unknown): error is OcrError {
  return error instanceof OcrError || (error instanceof Error && error.name === "OcrError" && "code" in error);
}

/** Recognizes English text in an image (any format sharp decodes; first page/frame only). */
export async function recognizeText(image: Uint8Array, options: OcrOptions): Promise<OcrResult> {
  return engine.recognize(image, options);
}

/** Starts the worker now (e.g. at server start) instead of on the first request. */
export async function warmUpOcr(): Promise<void> {
  await engine.warmUp();
}

/**
 * Terminates the worker. Requests running at that moment fail with "shut-down"; queued and later
 * requests start a new worker, so this is also safe to call between test files.
 */
export async function shutdownOcr(): Promise<void> {
  await engine.shutdown();
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

export function ocrEngineInfo(): OcrEngineInfo {
  return engine.info();
}

// ---------------------------------------------------------------------------------------------
// Preprocessing

/** Refused before decoding: ~100 megapixels (e.g. 10000 x 10000). */
export const MAX_INPUT_PIXELS = 100_000_000;
/** Small images are upscaled towards this many pixels (at most MAX_UPSCALE times). */
const TARGET_PIXELS = 1_000_000;
const MAX_UPSCALE = 4;
/** Large images are downscaled to at most this long side and this many pixels. */
const MAX_SIDE = 4000;
const MAX_PIXELS = 12_000_000;
/** A grey range (max - min) at or below this is treated as a blank image: no OCR at all. */
const BLANK_RANGE = 12;

export interface PreparedImage {
  /** Grayscale PNG handed to Tesseract; absent when the image is blank. */
  png?: Buffer;
  width: number;
  height: number;
  /** Scale applied to the auto-oriented input (>1 upscaled, <1 downscaled). */
  scale: number;
  blank: boolean;
}

/**
 * Auto-orients (EXIF), flattens transparency onto a background that contrasts with the visible
 * pixels (white, or black when they are mostly light, e.g. white captions on a transparent
 * sticker), converts to grayscale, upscales small images (Tesseract's LSTM misses text below about
 * 8 px) and caps huge ones. Measured on 36 rendered test images (6-60 px text, coloured, JPEG q40,
 * captions on a noisy photo, EXIF-rotated, transparent): mean word recall 0.72 on the raw bytes vs
 * 0.93 preprocessed (100 vs 178 ms per image); 6-7 px text 0 -> 0.5-0.9, EXIF-rotated 0 -> 1,
 * white text on transparency 0.8-0.9 -> 1 (flattening onto plain white gives 0).
 */
export async function preprocessForOcr(image: Uint8Array): Promise<PreparedImage> {
  const input = Buffer.isBuffer(image) ? image : Buffer.from(image.buffer, image.byteOffset, image.byteLength);
  if (input.length === 0) throw new OcrError("invalid-image", "The image is empty.");
  const open = () => sharp(input, { failOn: "error", limitInputPixels: MAX_INPUT_PIXELS });

  let meta: Metadata;
  try {
    meta = await sharp(input, { failOn: "error", limitInputPixels: false }).metadata();
  } catch (error) {
    throw new OcrError("invalid-image", `The image could not be decoded (${errorMessage(error)}).`, { cause: error });
  }
  const width = meta.autoOrient?.width ?? meta.width;
  const height = meta.autoOrient?.height ?? meta.height;
  if (!width || !height) throw new OcrError("invalid-image", "The image has no size.");
  if (width * height > MAX_INPUT_PIXELS) {
    throw new OcrError("image-too-large", `The image has ${width * height} pixels; the limit is ${MAX_INPUT_PIXELS}.`);
  }

  const scale = chooseScale(width, height);
  const outWidth = Math.max(1, Math.round(width * scale));
  const outHeight = Math.max(1, Math.round(height * scale));
  try {
    const background = meta.hasAlpha ? await contrastingBackground(open) : WHITE;
    let pipeline = open().autoOrient().flatten({ background }).grayscale();
    if (scale !== 1) pipeline = pipeline.resize(outWidth, outHeight, { fit: "fill", kernel: "lanczos3" });
    const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
    const channels = info.channels;
    if (isBlank(data, channels)) return { width: info.width, height: info.height, scale, blank: true };
    const png = await sharp(data, { raw: { width: info.width, height: info.height, channels } })
      .png({ compressionLevel: 1 })
      .toBuffer();
    return { png, width: info.width, height: info.height, scale, blank: false };
  } catch (error) {
    if (isOcrError(error)) throw error;
    throw new OcrError("invalid-image", `The image could not be decoded (${errorMessage(error)}).`, { cause: error });
  }
}

const WHITE = { r: 255, g: 255, b: 255 };
const BLACK = { r: 0, g: 0, b: 0 };

function chooseScale(width: number, height: number): number {
  const pixels = width * height;
  let scale = pixels < TARGET_PIXELS ? Math.min(MAX_UPSCALE, Math.sqrt(TARGET_PIXELS / pixels)) : 1;
  scale = Math.min(scale, MAX_SIDE / Math.max(width, height), Math.sqrt(MAX_PIXELS / pixels));
  // Do not bother resampling for a few percent.
  return Math.abs(scale - 1) < 0.05 ? 1 : scale;
}

/** White unless the opaque pixels are mostly light (alpha-weighted mean luminance > 60 %). */
async function contrastingBackground(open: () => Sharp): Promise<typeof WHITE> {
  const { data, info } = await open()
    .resize(256, 256, { fit: "inside", withoutEnlargement: true })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const step = info.channels; // RGBA
  let weight = 0;
  let sum = 0;
  for (let i = 0; i + 3 < data.length; i += step) {
    const a = data[i + 3]!;
    if (a === 0) continue;
    weight += a;
    sum += a * (0.2126 * data[i]! + 0.7152 * data[i + 1]! + 0.0722 * data[i + 2]!);
  }
  return weight > 0 && sum / weight > 153 ? BLACK : WHITE;
}

function isBlank(data: Buffer, channels: number): boolean {
  let min = 255;
  let max = 0;
  for (let i = 0; i < data.length; i += channels) {
    const v = data[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
    if (max - min > BLANK_RANGE) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// The worker

const START_TIMEOUT_MS = 60_000;
const MAX_TIMER_MS = 2_147_483_647;

interface Handle {
  tw: Tesseract.Worker | null;
  thread: ThreadWorker | null;
  /** Rejects when the thread exits or errors (never resolves). */
  died: Promise<never>;
  /** Why it was stopped, if we stopped it. */
  stopReason: OcrError | null;
  fail(error: OcrError): void;
  /** Removes our listeners from `thread`. */
  detach?: () => void;
}

class OcrEngine {
  #handle: Handle | null = null;
  #starting: Promise<Handle> | null = null;
  #startingHandle: Handle | null = null;
  #tail: Promise<void> = Promise.resolve();
  #active = 0;
  #starts = 0;
  #killedForTimeout = 0;
  #lastLoadMs: number | null = null;

  info(): OcrEngineInfo {
    return {
      state: this.#handle ? "ready" : this.#starting ? "starting" : "stopped",
      starts: this.#starts,
      killedForTimeout: this.#killedForTimeout,
      lastLoadMs: this.#lastLoadMs,
    };
  }

  async warmUp(): Promise<void> {
    await this.#ensureStarted();
  }

  async shutdown(): Promise<void> {
    const reason = new OcrError("shut-down", "The OCR engine was shut down.");
    const starting = this.#starting;
    if (this.#handle) this.#stop(this.#handle, reason);
    if (starting) {
      try {
        this.#stop(await starting, reason);
      } catch {
        // a failed start leaves nothing to stop
      }
    }
  }

  async recognize(image: Uint8Array, options: OcrOptions): Promise<OcrResult> {
    const job = jobSignal(options);
    const ticket = this.#reserve();
    try {
      // Preprocessing starts at once and overlaps with earlier requests; invalid and blank images
      // settle without waiting for their turn.
      const prepared = await raceSignal(preprocessForOcr(image), job.signal);
      if (prepared.blank || !prepared.png) return result("", 0);
      await raceSignal(ticket.turn, job.signal);
      const handle = await raceSignal(this.#ensureStarted(), job.signal);
      const page = await this.#recognizeOn(handle, prepared.png, job.signal);
      return pageResult(page, options.minWordConfidence ?? DEFAULT_MIN_WORD_CONFIDENCE);
    } finally {
      ticket.release();
      job.dispose();
    }
  }

  async #recognizeOn(handle: Handle, png: Buffer, signal: AbortSignal): Promise<Tesseract.Page> {
    const tw = handle.tw!;
    try {
      const recognized = tw.recognize(png, {}, { text: false, tsv: true }).then((r) => r.data);
      return await raceSignal(Promise.race([recognized, handle.died]), signal);
    } catch (error) {
      if (signal.aborted) {
        // Tesseract cannot be interrupted: drop the worker so the next request does not queue
        // behind the abandoned recognition.
        this.#killedForTimeout++;
        this.#stop(handle, signal.reason as OcrError);
        throw signal.reason;
      }
      // The thread died, was shut down, or Tesseract reported an error (its wasm state may be
      // broken): either way this worker is not used again.
      const failure = isOcrError(error)
        ? error
        : new OcrError("engine-failed", `Tesseract failed: ${errorMessage(error)}`, { cause: error });
      this.#stop(handle, failure);
      throw handle.stopReason ?? failure;
    }
  }

  /** A FIFO slot: `turn` resolves when every earlier request has released its slot. */
  #reserve(): { turn: Promise<void>; release(): void } {
    const turn = this.#tail;
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    this.#tail = turn.then(() => done);
    this.#active++;
    this.#updateRef();
    let released = false;
    return {
      turn,
      release: () => {
        if (released) return;
        released = true;
        this.#active--;
        release();
        this.#updateRef();
      },
    };
  }

  #ensureStarted(): Promise<Handle> {
    if (this.#handle) return Promise.resolve(this.#handle);
    if (!this.#starting) {
      this.#starting = this.#start().finally(() => {
        this.#starting = null;
        this.#startingHandle = null;
        this.#updateRef();
      });
    }
    return this.#starting;
  }

  async #start(): Promise<Handle> {
    const started = performance.now();
    const langPath = resolveLangPath();
    const handle = newHandle();
    this.#startingHandle = handle;
    this.#starts++;

    // tesseract.js creates its worker_thread synchronously inside createWorker but only exposes
    // it when initialization has finished. Until then an uncaught error in the thread would be an
    // 'error' event without a listener, i.e. a crash of this process: catch the thread as it is
    // announced (process 'worker' event, emitted on the next tick) and listen from the start.
    const onWorker = (thread: ThreadWorker) => {
      process.off("worker", onWorker);
      this.#attach(handle, thread);
    };
    process.on("worker", onWorker);
    let startTimer: NodeJS.Timeout | undefined;
    try {
      const created = Tesseract.createWorker("eng", Tesseract.OEM.LSTM_ONLY, {
        langPath,
        cacheMethod: "none",
        gzip: true,
        logger: () => {},
        // Without a handler tesseract.js re-throws job errors inside its message listener, which
        // would be an uncaught exception; the job's own promise still rejects.
        errorHandler: () => {},
      });
      const timeout = new Promise<never>((_, reject) => {
        startTimer = setTimeout(
          () => reject(new OcrError("engine-failed", `The OCR worker did not start within ${START_TIMEOUT_MS} ms.`)),
          START_TIMEOUT_MS,
        );
      });
      const tw = await Promise.race([created, handle.died, timeout]).catch((error: unknown) => {
        created.then((late) => void late.terminate(), () => {});
        throw isOcrError(error)
          ? error
          : new OcrError("engine-failed", `The OCR worker failed to start: ${errorMessage(error)}`, { cause: error });
      });
      handle.tw = tw;
      const thread = (tw as unknown as { worker?: ThreadWorker }).worker;
      if (thread && thread !== handle.thread) this.#attach(handle, thread); // someone else's worker was announced first
      // A fixed resolution avoids "Invalid resolution" guesses (and their stdout warnings) for
      // images without DPI metadata; debug output goes nowhere.
      await Promise.race([
        tw.setParameters({ user_defined_dpi: "300", debug_file: "/dev/null" } as Partial<Tesseract.WorkerParams>),
        handle.died,
        timeout,
      ]);
      this.#lastLoadMs = Math.round(performance.now() - started);
      this.#handle = handle;
      return handle;
    } catch (error) {
      const failure = isOcrError(error)
        ? error
        : new OcrError("engine-failed", `The OCR worker failed to start: ${errorMessage(error)}`, { cause: error });
      this.#stop(handle, failure);
      throw failure;
    } finally {
      process.off("worker", onWorker);
      clearTimeout(startTimer);
    }
  }

  #attach(handle: Handle, thread: ThreadWorker): void {
    handle.detach?.();
    const onError = (error: Error) =>
      handle.fail(new OcrError("engine-failed", `The OCR worker crashed: ${error.message}`, { cause: error }));
    const onExit = (code: number) => {
      handle.fail(new OcrError("engine-failed", `The OCR worker exited (code ${code}).`));
      if (this.#handle === handle) this.#handle = null;
    };
    thread.on("error", onError);
    thread.once("exit", onExit);
    guardMessageListeners(thread, (error) =>
      handle.fail(new OcrError("engine-failed", `tesseract.js failed: ${errorMessage(error)}`, { cause: error })),
    );
    handle.thread = thread;
    handle.detach = () => {
      thread.off("error", onError);
      thread.off("exit", onExit);
    };
    this.#updateRef();
  }

  #stop(handle: Handle, reason: OcrError): void {
    handle.stopReason ??= reason;
    handle.fail(handle.stopReason);
    if (this.#handle === handle) this.#handle = null;
    if (handle.tw) void handle.tw.terminate().catch(() => {});
    else void handle.thread?.terminate().catch(() => {});
  }

  /** Keeps the process alive only while there is OCR work (or a start) in progress. */
  #updateRef(): void {
    const busy = this.#active > 0 || this.#starting !== null;
    for (const handle of [this.#handle, this.#startingHandle]) {
      if (!handle?.thread) continue;
      if (busy) handle.thread.ref();
      else handle.thread.unref();
    }
  }
}

const guarded = new WeakSet<ThreadWorker>();

/**
 * tesseract.js handles worker messages in a listener that can throw in the main thread, e.g. with
 * unusable language data its `initialize` job rejects and then resolves, and the second message
 * hits a deleted promise (TypeError). Thrown from an event listener that is an uncaught exception:
 * the whole server would die. Re-registers its listeners wrapped, turning such throws into an
 * engine failure.
 */
function guardMessageListeners(thread: ThreadWorker, onThrow: (error: unknown) => void): void {
  if (guarded.has(thread)) return;
  guarded.add(thread);
  for (const listener of thread.listeners("message") as ((...args: unknown[]) => void)[]) {
    thread.off("message", listener);
    thread.on("message", (...args: unknown[]) => {
      try {
        listener.apply(thread, args);
      } catch (error) {
        onThrow(error);
      }
    });
  }
}

function newHandle(): Handle {
  let reject!: (error: OcrError) => void;
  const died = new Promise<never>((_, r) => (reject = r));
  died.catch(() => {}); // observed through races only
  const handle: Handle = {
    tw: null,
    thread: null,
    died,
    stopReason: null,
    fail: (error) => reject(handle.stopReason ?? error),
  };
  return handle;
}

const engine = new OcrEngine();

// ---------------------------------------------------------------------------------------------
// Helpers

/**
 * The `4.0.0_best_int` folder of @tesseract.js-data/eng. Resolved with a require function obtained
 * through process.getBuiltinModule, which bundlers do not rewrite into a module id; falls back to
 * the working directory (the server runs from the project root). Never a URL: a URL (or a missing
 * langPath) would make tesseract.js download from its CDN.
 */
function resolveLangPath(): string {
  const configured = process.env.SIEVE_OCR_LANG_PATH;
  const candidates: string[] = configured ? [configured] : [];
  if (!configured) {
    const { createRequire } = process.getBuiltinModule("node:module");
    for (const base of [import.meta.url, path.join(/*turbopackIgnore: true*/ process.cwd(), "package.json")]) {
      try {
        const pkg = createRequire(base).resolve("@tesseract.js-data/eng/package.json");
        candidates.push(path.join(path.dirname(pkg), "4.0.0_best_int"));
      } catch {
        // try the next base
      }
    }
  }
  for (const dir of candidates) {
    if (!/^[a-z][a-z0-9+.-]*:/i.test(dir) && fs.existsSync(path.join(dir, "eng.traineddata.gz"))) return path.resolve(dir);
  }
  throw new OcrError(
    "engine-failed",
    configured
      ? `SIEVE_OCR_LANG_PATH (${configured}) is not a local folder with eng.traineddata.gz.`
      : "The English OCR model (@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz) was not found; set SIEVE_OCR_LANG_PATH.",
  );
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

/**
 * Rebuilds the text from Tesseract's TSV output (one row per block, paragraph, line and word; cheaper
 * to produce and pass between threads than the `blocks` object tree), keeping only confident words
 * with a letter or digit. Lines are joined by "\n", paragraphs and blocks by a blank line.
 */
function pageResult(page: Tesseract.Page, minConfidence: number): OcrResult {
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
  return result(text, kept > 0 ? Math.round((confidenceSum / kept) * 10) / 10 : 0, kept);
}

function result(text: string, confidence: number, words = 0): OcrResult {
  return { text, confidence, words, engine: OCR_ENGINE };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
