import path from "node:path";
import { Worker } from "node:worker_threads";
import sharp from "sharp";
import type { z } from "zod";
import type { Category, QualifierKey } from "../report";
import { ProviderError, type ClassifierProvider, type ClassifyOptions, type MediaKind, type ProviderInput, type ProviderResult } from "../providers/types";

/**
 * Local sexual-content classifier for images and video frames: nsfwjs 4.4.0 with its bundled
 * MobileNetV2 model (224×224 input, five classes) on TensorFlow.js' wasm backend.
 *
 * - Inference runs in a worker thread (nsfw-worker.mjs), never on the main event loop. One worker
 *   per process, started lazily and unref'd while idle; requests are queued and sent to it one at a
 *   time; the model loads once per worker on first use (`warmUpNsfw()` preloads it). A crashed or
 *   hung worker is replaced on the next request; the request in flight fails with code "network".
 * - Decoding happens on the main thread with sharp (asynchronous, on libuv's thread pool): EXIF
 *   orientation applied, transparency flattened on white, converted to 8-bit sRGB, and resized to
 *   224×224 with `fit: "fill"` (stretched, aspect ratio not kept). That is what the model saw in
 *   training (images were resized straight to 224×224) and what nsfwjs does itself; `cover` would
 *   crop away parts of the picture that may be the problematic ones, `contain` would add bars the
 *   model never saw.
 * - Animated or multi-page images (GIF, WebP, TIFF, AVIF sequences): up to `maxFrames` pages,
 *   evenly spaced including the first and last, are classified and the frame with the highest
 *   sexual score is reported (so later frames are not ignored).
 * - `timeoutMs` covers decoding, waiting in the queue and inference (including the first model
 *   load, ~0.5–1 s, unless `warmUpNsfw()` ran). A request aborted or timed out while queued never
 *   reaches the worker.
 */

export const NSFW_PROVIDER_ID = "nsfwjs";
/** The installed nsfwjs version (a test checks it against node_modules/nsfwjs/package.json). */
export const NSFWJS_VERSION = "4.4.0";
export const NSFW_MODEL = "mobilenetv2-224";
/** Revision of NSFW_SCORE_MAPPING; bump it when the weights change so reports stay comparable. */
export const NSFW_MAPPING_REVISION = 1;
export const NSFW_PROVIDER_VERSION = `nsfwjs-${NSFWJS_VERSION}-${NSFW_MODEL}+map${NSFW_MAPPING_REVISION}`;

export const NSFW_CLASSES = ["Drawing", "Hentai", "Neutral", "Porn", "Sexy"] as const;
export type NsfwClass = (typeof NSFW_CLASSES)[number];
export type NsfwProbabilities = Record<NsfwClass, number>;

const SIZE = 224;

/**
 * From the five class probabilities (softmax, summing to 1) to our scores: each score is
 * Σ P(class) × weight, where the weight is our estimate of how often an image of that class has
 * the property. The classes (nsfw_model training data): Drawing = safe drawings/anime,
 * Hentai = explicit drawings, Neutral = safe photos, Porn = explicit photos, Sexy = suggestive
 * but not explicit (lingerie, swimwear, partial nudity).
 * - sexual: Porn and Hentai are explicit sexual content (1); Sexy counts half (0.5), so an image
 *   the model is sure is merely suggestive lands at 0.5 ("possible", below the default 0.6 flag
 *   threshold) while any real share of Porn/Hentai pushes it over.
 * - nudity: explicit classes almost always show nudity (0.9); suggestive images sometimes (0.35).
 * - sexual-activity: the model cannot tell a sex act from explicit posed nudity, both are "Porn"/
 *   "Hentai", so those classes give at most 0.5 ("possible"); suggestive images give 0.
 * Drawing and Neutral weigh 0 everywhere. The weights are priors from the class definitions, not a
 * calibration on labelled data (none is available offline). Weights ≤ 1 and probabilities summing
 * to 1 keep every score in 0..1 (clamped against rounding).
 */
export const NSFW_SCORE_MAPPING = {
  sexual: { Drawing: 0, Hentai: 1, Neutral: 0, Porn: 1, Sexy: 0.5 },
  nudity: { Drawing: 0, Hentai: 0.9, Neutral: 0, Porn: 0.9, Sexy: 0.35 },
  "sexual-activity": { Drawing: 0, Hentai: 0.5, Neutral: 0, Porn: 0.5, Sexy: 0 },
} as const satisfies Record<"sexual" | "nudity" | "sexual-activity", Record<NsfwClass, number>>;

/** A class at or above this probability becomes a search label (so at most two labels). */
export const NSFW_LABEL_MIN_PROBABILITY = 0.4;

export interface NsfwScores {
  score: number;
  qualifiers: { nudity: number; "sexual-activity": number };
}

function weighted(p: NsfwProbabilities, weights: Record<NsfwClass, number>): number {
  let sum = 0;
  for (const c of NSFW_CLASSES) sum += p[c] * weights[c];
  return Math.min(1, Math.max(0, sum));
}

/** The sexual score and its qualifiers for one image's class probabilities (NSFW_SCORE_MAPPING). */
export function nsfwScores(p: NsfwProbabilities): NsfwScores {
  return {
    score: weighted(p, NSFW_SCORE_MAPPING.sexual),
    qualifiers: { nudity: weighted(p, NSFW_SCORE_MAPPING.nudity), "sexual-activity": weighted(p, NSFW_SCORE_MAPPING["sexual-activity"]) },
  };
}

/**
 * Search keywords from a result's `details`: the lower-cased names of the classes with probability
 * ≥ NSFW_LABEL_MIN_PROBABILITY, most likely first ("drawing", "neutral", "sexy", "porn", "hentai").
 * Nothing for details that are not an nsfwjs result.
 */
export function imageLabelsFrom(details: unknown): string[] {
  if (typeof details !== "object" || details === null) return [];
  const classes = (details as { classes?: unknown }).classes;
  if (typeof classes !== "object" || classes === null) return [];
  const entries: [string, number][] = [];
  for (const c of NSFW_CLASSES) {
    const p = (classes as Record<string, unknown>)[c];
    if (typeof p === "number" && Number.isFinite(p) && p >= NSFW_LABEL_MIN_PROBABILITY) entries.push([c.toLowerCase(), p]);
  }
  return entries.sort((a, b) => b[1] - a[1]).map(([name]) => name);
}

export interface NsfwProviderOptions {
  /** The worker script; default `<cwd>/lib/moderation/image/nsfw-worker.mjs` (the server runs from the project root). */
  workerPath?: string;
  /** Most frames classified for an animated/multi-page image (default 8). */
  maxFrames?: number;
  /** Largest input decoded, in pixels per frame (default 100 megapixels); larger images are malformed. */
  maxInputPixels?: number;
}

export const NSFW_DEFAULT_MAX_FRAMES = 8;
export const NSFW_MAX_INPUT_PIXELS = 100_000_000;
/** A worker that has not answered one request after this long is terminated and replaced. */
export const NSFW_WORKER_HANG_MS = 60_000;

export function defaultNsfwWorkerPath(): string {
  return path.resolve(/*turbopackIgnore: true*/ process.cwd(), "lib/moderation/image/nsfw-worker.mjs");
}

// ---------------------------------------------------------------------------------------------
// Worker host: one worker per script path, a FIFO queue, one request in flight.

interface WorkerInfo {
  nsfwjsVersion: string;
  model: string;
  size: number;
  tfjsVersion: string;
  backend: string;
}

type WorkerReply =
  | { id: number; ok: true; info: WorkerInfo; loadMs?: number; frames?: Record<string, number>[] }
  | { id: number; ok: false; error: string };

type WorkerRequest = { type: "load" } | { type: "classify"; frames: ArrayBuffer[] };

/** The worker died, hung, failed to load the model or could not run the request. */
class WorkerFailure extends Error {}
/** The caller's signal fired before the answer came. */
class Cancelled extends Error {}

interface Job {
  id: number;
  request: WorkerRequest;
  transfer: ArrayBuffer[];
  resolve: (reply: Extract<WorkerReply, { ok: true }>) => void;
  reject: (error: Error) => void;
  done: boolean;
  cleanup: () => void;
}

class WorkerHost {
  private worker: Worker | null = null;
  private readonly queue: Job[] = [];
  private current: Job | null = null;
  private nextId = 1;
  private hangTimer: NodeJS.Timeout | undefined;
  /** Why the last worker ended (for the error of the request it was running). */
  private lastError: Error | undefined;
  restarts = 0;

  constructor(readonly workerPath: string) {}

  run(request: WorkerRequest, transfer: ArrayBuffer[], signal?: AbortSignal): Promise<Extract<WorkerReply, { ok: true }>> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(new Cancelled("aborted before start"));
        return;
      }
      const onAbort = () => {
        const index = this.queue.indexOf(job);
        if (index >= 0) this.queue.splice(index, 1); // never sent to the worker
        // In flight: the worker finishes it and the answer is dropped.
        this.settle(job, () => reject(new Cancelled("aborted")));
        this.updateRef();
      };
      const job: Job = {
        id: this.nextId++,
        request,
        transfer,
        resolve,
        reject,
        done: false,
        cleanup: () => signal?.removeEventListener("abort", onAbort),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(job);
      this.pump();
    });
  }

  private settle(job: Job, action: () => void): void {
    if (job.done) return;
    job.done = true;
    job.cleanup();
    action();
  }

  private spawn(): Worker {
    const worker = new Worker(this.workerPath, { execArgv: [], name: "nsfwjs" });
    this.lastError = undefined;
    worker.on("message", (reply: WorkerReply) => this.onReply(worker, reply));
    worker.on("error", (error) => {
      if (worker === this.worker) this.lastError = error;
    });
    worker.on("messageerror", (error) => {
      if (worker === this.worker) this.lastError = error;
    });
    worker.on("exit", (code) => this.onExit(worker, code));
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private pump(): void {
    if (this.current) return;
    const job = this.queue.shift();
    if (!job) {
      this.updateRef();
      return;
    }
    let worker: Worker;
    try {
      worker = this.worker ?? this.spawn();
    } catch (error) {
      this.settle(job, () => job.reject(new WorkerFailure(`cannot start the nsfwjs worker: ${message(error)}`)));
      this.pump();
      return;
    }
    this.current = job;
    this.updateRef();
    this.hangTimer = setTimeout(() => {
      this.lastError = new Error(`no answer within ${NSFW_WORKER_HANG_MS} ms`);
      void worker.terminate();
    }, NSFW_WORKER_HANG_MS);
    this.hangTimer.unref();
    try {
      worker.postMessage({ id: job.id, ...job.request }, job.transfer);
    } catch (error) {
      this.finishCurrent();
      this.settle(job, () => job.reject(new WorkerFailure(`cannot send the request to the nsfwjs worker: ${message(error)}`)));
      this.pump();
    }
  }

  private finishCurrent(): Job | null {
    const job = this.current;
    this.current = null;
    clearTimeout(this.hangTimer);
    this.hangTimer = undefined;
    return job;
  }

  private onReply(worker: Worker, reply: WorkerReply): void {
    if (worker !== this.worker || !this.current || reply?.id !== this.current.id) return;
    const job = this.finishCurrent()!;
    if (reply.ok) this.settle(job, () => job.resolve(reply));
    else this.settle(job, () => job.reject(new WorkerFailure(reply.error)));
    this.pump();
  }

  private onExit(worker: Worker, code: number): void {
    if (worker !== this.worker) return;
    this.worker = null;
    this.restarts += 1;
    const job = this.finishCurrent();
    if (job) {
      const why = this.lastError ? `: ${this.lastError.message}` : "";
      this.settle(job, () => job.reject(new WorkerFailure(`the nsfwjs worker exited (code ${code}) during the request${why}`)));
    }
    this.pump(); // queued requests go to a new worker
  }

  /** Keep the process alive only while requests are pending. */
  private updateRef(): void {
    if (!this.worker) return;
    if (this.current || this.queue.length > 0) this.worker.ref();
    else this.worker.unref();
  }

  async shutdown(): Promise<void> {
    const failure = () => new WorkerFailure("the nsfwjs worker was shut down");
    for (const job of this.queue.splice(0)) this.settle(job, () => job.reject(failure()));
    const job = this.finishCurrent();
    if (job) this.settle(job, () => job.reject(failure()));
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  // Test hooks
  state() {
    return { running: this.worker !== null, threadId: this.worker?.threadId, inFlight: this.current !== null, queued: this.queue.length, restarts: this.restarts };
  }
  async terminateWorker(): Promise<void> {
    this.lastError = new Error("terminated (test hook)");
    await this.worker?.terminate();
  }
  crashWorker(): void {
    this.worker?.postMessage({ type: "crash" });
  }
}

// Kept on globalThis so a module re-evaluation (Next.js dev reloads) reuses the running worker
// instead of leaking another one.
const HOSTS_KEY = Symbol.for("sieve.moderation.nsfwjs.hosts");
const hosts: Map<string, WorkerHost> = ((globalThis as Record<symbol, unknown>)[HOSTS_KEY] as Map<string, WorkerHost> | undefined) ??
  ((globalThis as Record<symbol, unknown>)[HOSTS_KEY] = new Map<string, WorkerHost>());

function hostFor(workerPath: string | undefined): WorkerHost {
  const resolved = path.resolve(workerPath ?? defaultNsfwWorkerPath());
  let host = hosts.get(resolved);
  if (!host) {
    host = new WorkerHost(resolved);
    hosts.set(resolved, host);
  }
  return host;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Starts the worker and loads the model now instead of on the first classification.
 * Resolves with the model load time (of this worker) or rejects (ProviderError "network").
 */
export async function warmUpNsfw(options: Pick<NsfwProviderOptions, "workerPath"> = {}): Promise<{ loadMs: number; model: string }> {
  try {
    const reply = await hostFor(options.workerPath).run({ type: "load" }, []);
    return { loadMs: Math.round(reply.loadMs ?? 0), model: modelName(reply.info) };
  } catch (error) {
    throw new ProviderError(NSFW_PROVIDER_ID, "network", `model load failed: ${message(error)}`, { cause: error });
  }
}

/** Terminates the worker(s); pending requests fail. A later classification starts a new worker. */
export async function shutdownNsfw(): Promise<void> {
  await Promise.all([...hosts.values()].map((h) => h.shutdown()));
}

/** For tests only. */
export const __nsfwTestHooks = {
  state: (workerPath?: string) => hostFor(workerPath).state(),
  /** Kills the worker as a crash would (terminate from outside, even mid-request). */
  terminateWorker: (workerPath?: string) => hostFor(workerPath).terminateWorker(),
  /** Makes the worker throw an uncaught exception. */
  crashWorker: (workerPath?: string) => hostFor(workerPath).crashWorker(),
};

// ---------------------------------------------------------------------------------------------
// Decoding

interface Decoded {
  frames: ArrayBuffer[];
  totalFrames: number;
  indices: number[];
}

/** Up to `max` page indices out of `total`, evenly spaced, first and last included. */
export function sampleFrameIndices(total: number, max: number): number[] {
  const n = Math.max(1, Math.floor(total));
  const m = Math.max(1, Math.floor(max));
  if (n <= m) return Array.from({ length: n }, (_, i) => i);
  if (m === 1) return [0];
  return [...new Set(Array.from({ length: m }, (_, i) => Math.round((i * (n - 1)) / (m - 1))))];
}

async function decodeFrames(data: Uint8Array, maxFrames: number, maxPixels: number): Promise<Decoded> {
  const input = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const meta = await sharp(input, { limitInputPixels: maxPixels }).metadata();
  const totalFrames = Math.max(1, meta.pages ?? 1);
  const indices = sampleFrameIndices(totalFrames, maxFrames);
  const frames = await Promise.all(
    indices.map(async (page) => {
      const { data: raw, info } = await sharp(input, { limitInputPixels: maxPixels, page })
        .rotate() // EXIF orientation
        .flatten({ background: { r: 255, g: 255, b: 255 } })
        .resize(SIZE, SIZE, { fit: "fill" })
        .toColourspace("srgb")
        .removeAlpha()
        .raw({ depth: "uchar" })
        .toBuffer({ resolveWithObject: true });
      if (info.width !== SIZE || info.height !== SIZE || info.channels !== 3 || raw.byteLength !== SIZE * SIZE * 3) {
        throw new Error(`unexpected raster ${info.width}×${info.height}×${info.channels}`);
      }
      // A fresh ArrayBuffer of exactly this frame, transferred to the worker.
      return new Uint8Array(raw).buffer;
    }),
  );
  return { frames, totalFrames, indices };
}

/** Rejects with Cancelled when the signal fires first (the underlying work is left to finish). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  promise.catch(() => {}); // an abandoned promise must not become an unhandled rejection
  if (signal.aborted) return Promise.reject(new Cancelled("aborted"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new Cancelled("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function modelName(info: WorkerInfo): string {
  return `nsfwjs-${info.nsfwjsVersion}-${info.model.toLowerCase()}-${info.size}`;
}

function probabilitiesOf(raw: Record<string, number> | undefined): NsfwProbabilities {
  const p = {} as NsfwProbabilities;
  for (const c of NSFW_CLASSES) {
    const value = raw?.[c];
    if (typeof value !== "number" || !Number.isFinite(value) || value < -1e-6 || value > 1 + 1e-6) {
      throw new ProviderError(NSFW_PROVIDER_ID, "malformed", `model output for ${c} is not a probability: ${String(value)}`);
    }
    p[c] = Math.min(1, Math.max(0, value));
  }
  return p;
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

// ---------------------------------------------------------------------------------------------
// Provider

const IMAGE_CATEGORIES: readonly Category[] = ["sexual"];
const NONE: readonly Category[] = [];

export function createNsfwProvider(options: NsfwProviderOptions = {}): ClassifierProvider {
  const maxFrames = options.maxFrames ?? NSFW_DEFAULT_MAX_FRAMES;
  const maxPixels = options.maxInputPixels ?? NSFW_MAX_INPUT_PIXELS;
  const id = NSFW_PROVIDER_ID;

  function supports(kind: MediaKind): readonly Category[] {
    return kind === "image" || kind === "frame" ? IMAGE_CATEGORIES : NONE;
  }

  async function classify(input: ProviderInput, opts: ClassifyOptions): Promise<ProviderResult> {
    if (input.kind === "text") throw new ProviderError(id, "malformed", "nsfwjs classifies images and video frames, not text");
    const timeout = AbortSignal.timeout(opts.timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    const stopped = () =>
      opts.signal?.aborted
        ? new ProviderError(id, "aborted", "classification aborted", { cause: opts.signal.reason })
        : new ProviderError(id, "timeout", `no result within ${opts.timeoutMs} ms`);
    if (signal.aborted) throw stopped();
    if (!(input.data instanceof Uint8Array) || input.data.byteLength === 0) throw new ProviderError(id, "malformed", "empty image data");

    let decoded: Decoded;
    try {
      decoded = await untilAborted(decodeFrames(input.data, maxFrames, maxPixels), signal);
    } catch (error) {
      if (error instanceof Cancelled || signal.aborted) throw stopped();
      throw new ProviderError(id, "malformed", `cannot decode the image (${input.mimeType}): ${message(error)}`, { cause: error });
    }

    let reply: Extract<WorkerReply, { ok: true }>;
    try {
      reply = await hostFor(options.workerPath).run({ type: "classify", frames: decoded.frames }, decoded.frames, signal);
    } catch (error) {
      if (error instanceof Cancelled || signal.aborted) throw stopped();
      throw new ProviderError(id, "network", `inference failed: ${message(error)}`, { cause: error });
    }
    if (!reply.frames || reply.frames.length !== decoded.frames.length) {
      throw new ProviderError(id, "malformed", `worker returned ${reply.frames?.length ?? 0} results for ${decoded.frames.length} frames`);
    }

    // The frame with the highest sexual score speaks for the image.
    let worst = -1;
    let best: { p: NsfwProbabilities; s: NsfwScores } | undefined;
    reply.frames.forEach((raw, i) => {
      const p = probabilitiesOf(raw);
      const s = nsfwScores(p);
      if (!best || s.score > best.s.score) {
        best = { p, s };
        worst = i;
      }
    });
    const { p, s } = best!;
    const details: Record<string, z.core.util.JSONType> = {
      model: modelName(reply.info),
      classes: Object.fromEntries(NSFW_CLASSES.map((c) => [c, round4(p[c])])),
    };
    if (decoded.totalFrames > 1) {
      details.frames = { total: decoded.totalFrames, sampled: decoded.indices.length, reported: decoded.indices[worst] ?? 0 };
    }
    const qualifiers: Partial<Record<QualifierKey, number>> = { ...s.qualifiers };
    return { categories: { sexual: { score: s.score, qualifiers } }, details };
  }

  return { id, version: NSFW_PROVIDER_VERSION, supports, classify };
}
