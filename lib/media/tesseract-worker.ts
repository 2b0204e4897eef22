import fs from "node:fs";
import path from "node:path";
import type Tesseract from "tesseract.js";
import { WorkerHost, type WorkerProtocol } from "@/lib/core/worker-host";
import { OcrError } from "./ocr-errors";

/**
 * Tesseract in a worker thread, run by the generic WorkerHost. The thread is tesseract.js' own Node
 * worker script (src/worker-script/node/index.js, which loads the tesseract.js-core wasm), and this
 * module speaks its message protocol as tesseract.js' createWorker() would, without that client's
 * main-thread message listener: it throws on some worker answers (e.g. with unusable language data
 * the `initialize` job rejects and then resolves, and the second message hits a deleted promise),
 * which would be an uncaught exception taking the whole server down.
 *
 * Nothing is downloaded, ever: `langPath` is the data package's local folder (a path, not a URL, so
 * the worker reads it with fs), `cacheMethod: "none"` neither reads nor writes a cache, and in Node
 * the wasm core is `require`d from the `tesseract.js-core` package, which reads its `.wasm` file
 * next to itself (`corePath` is ignored in Node). Verified by running the engine with no network
 * interface at all (`unshare -n`).
 *
 * Bundling: the worker `require`s tesseract.js-core, so tesseract.js must stay outside the Next.js
 * bundle (`serverExternalPackages: ["tesseract.js"]`). The worker script and the language folder
 * are located at run time without a bundler-visible `require.resolve` (or with
 * `SIEVE_OCR_LANG_PATH`).
 */

/** One job of tesseract.js' worker protocol: { workerId, jobId, action, payload } → { jobId, status, data }. */
export interface TesseractJob {
  action: "load" | "loadLanguage" | "initialize" | "setParameters" | "recognize";
  payload: unknown;
}

export type TesseractHost = WorkerHost<TesseractJob, unknown>;

const WORKER_ID = "sieve-ocr";
/** Tesseract.OEM.LSTM_ONLY: the `best_int` model has no legacy engine data. */
const OEM_LSTM_ONLY = 1;
const START_TIMEOUT_MS = 60_000;

const protocol: WorkerProtocol<TesseractJob, unknown> = {
  encode: (id, job) => ({ workerId: WORKER_ID, jobId: id, action: job.action, payload: job.payload }),
  decode: (message) => {
    const answer = message as { jobId?: unknown; status?: unknown; data?: unknown } | null;
    if (typeof answer?.jobId !== "number") return null;
    if (answer.status === "resolve") return { id: answer.jobId, ok: true, result: answer.data };
    if (answer.status === "reject") return { id: answer.jobId, ok: false, error: String(answer.data) };
    return null; // progress
  },
};

export function createTesseractHost(): TesseractHost {
  return new WorkerHost({
    name: "the OCR worker",
    script: tesseractWorkerScript,
    protocol,
    startTimeoutMs: START_TIMEOUT_MS,
    // What createWorker("eng", OEM.LSTM_ONLY, { langPath, cacheMethod: "none", gzip: true }) sends.
    initialize: async (send) => {
      const langPath = resolveLangPath();
      await send({ action: "load", payload: { options: { lstmOnly: true } } });
      await send({ action: "loadLanguage", payload: { langs: "eng", options: { langPath, cacheMethod: "none", gzip: true, lstmOnly: true } } });
      await send({ action: "initialize", payload: { langs: "eng", oem: OEM_LSTM_ONLY, config: {} } });
      // A fixed resolution avoids "Invalid resolution" guesses (and their stdout warnings) for
      // images without DPI metadata; debug output goes nowhere.
      await send({ action: "setParameters", payload: { params: { user_defined_dpi: "300", debug_file: "/dev/null" } } });
    },
    // Tesseract cannot be interrupted: drop the worker so the next request does not queue behind
    // the abandoned recognition.
    onAbandon: "replace",
    // After Tesseract reported an error its wasm state may be broken: the worker is not used again.
    replaceAfterError: true,
  });
}

/** Recognizes a prepared PNG; only the TSV output is produced (see pageResult). */
export async function recognizePng(host: TesseractHost, png: Buffer, signal: AbortSignal): Promise<Tesseract.Page> {
  const payload = { image: new Uint8Array(png), options: {}, output: { text: false, tsv: true } };
  return (await host.request({ action: "recognize", payload }, { signal })) as Tesseract.Page;
}

/**
 * Where a package file resolves from this module and from the working directory (the server runs
 * from the project root). The require function comes from process.getBuiltinModule, which bundlers
 * do not rewrite into a module id.
 */
function packageFileCandidates(specifier: string): string[] {
  const { createRequire } = process.getBuiltinModule("node:module");
  const found: string[] = [];
  for (const base of [import.meta.url, path.join(/*turbopackIgnore: true*/ process.cwd(), "package.json")]) {
    try {
      found.push(createRequire(base).resolve(specifier));
    } catch {
      // try the next base
    }
  }
  return found;
}

/** tesseract.js' worker script for Node (what its createWorker() spawns). */
function tesseractWorkerScript(): string {
  for (const pkg of packageFileCandidates("tesseract.js/package.json")) {
    const script = path.join(path.dirname(pkg), "src", "worker-script", "node", "index.js");
    if (fs.existsSync(script)) return script;
  }
  throw new OcrError("engine-failed", "The tesseract.js worker script (tesseract.js/src/worker-script/node/index.js) was not found.");
}

/**
 * The `4.0.0_best_int` folder of @tesseract.js-data/eng, else the working directory's copy. Never a
 * URL: a URL (or a missing langPath) would make tesseract.js download from its CDN.
 */
function resolveLangPath(): string {
  const configured = process.env.SIEVE_OCR_LANG_PATH;
  const candidates: string[] = configured
    ? [configured]
    : packageFileCandidates("@tesseract.js-data/eng/package.json").map((pkg) => path.join(path.dirname(pkg), "4.0.0_best_int"));
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
