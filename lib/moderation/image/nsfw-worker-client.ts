import path from "node:path";
import { config } from "@/lib/core/config";
import { processSingleton } from "@/lib/core/singleton";
import { WorkerHost, type WorkerAnswer, type WorkerProtocol } from "@/lib/core/worker-host";
import { ProviderError } from "../providers/types";
import { NSFW_PROVIDER_ID } from "./nsfw-model";
import { errorMessage } from "@/lib/core/errors";

/**
 * The main-thread side of nsfw-worker.mjs: its message protocol, and a pool of WorkerHosts per
 * worker script, up to SIEVE_IMAGE_MODEL_WORKERS child processes (an inference takes ~6 ms; a
 * video's frames come in one request). Each host sends requests one at a time; a crashed worker is
 * replaced on the next request, a hung one after NSFW_WORKER_HANG_MS; a request abandoned in flight
 * is left to finish. A request goes to the least busy worker, starting another only when every
 * running one is busy.
 */

/** A worker that has not answered one request after this long is terminated and replaced. */
export const NSFW_WORKER_HANG_MS = 60_000;

export function defaultNsfwWorkerPath(): string {
  return path.resolve(/*turbopackIgnore: true*/ process.cwd(), "lib/moderation/image/nsfw-worker.mjs");
}

export interface NsfwWorkerInfo {
  nsfwjsVersion: string;
  model: string;
  size: number;
  /** The runtime that runs the model, e.g. "onnxruntime-node 1.30.0". */
  runtime: string;
  backend: string;
  /** Threads of one inference (SIEVE_IMAGE_MODEL_THREADS). */
  threads: number;
}

export type NsfwWorkerRequest = { type: "load" } | { type: "classify"; frames: ArrayBuffer[] };

/** A successful answer: `loadMs` for "load", one class → probability record per frame for "classify". */
export interface NsfwWorkerResult {
  info: NsfwWorkerInfo;
  loadMs?: number;
  frames?: Record<string, number>[];
}

const protocol: WorkerProtocol<NsfwWorkerRequest, NsfwWorkerResult> = {
  encode: (id, request) => ({ id, ...request }),
  decode: (message): WorkerAnswer<NsfwWorkerResult> | null => {
    const reply = message as { id?: unknown; ok?: unknown; error?: unknown } | null;
    if (typeof reply?.id !== "number") return null;
    return reply.ok ? { id: reply.id, ok: true, result: reply as unknown as NsfwWorkerResult } : { id: reply.id, ok: false, error: String(reply.error) };
  },
};

type NsfwWorkerHost = WorkerHost<NsfwWorkerRequest, NsfwWorkerResult>;

// Process-wide, so a module re-evaluation (Next.js dev reloads) reuses the running worker instead
// of leaking another one.
const pools = processSingleton("moderation.nsfwjs.pools", () => new Map<string, NsfwWorkerHost[]>());

function poolOf(workerPath: string | undefined): NsfwWorkerHost[] {
  const resolved = path.resolve(workerPath ?? defaultNsfwWorkerPath());
  let pool = pools.get(resolved);
  if (!pool) pools.set(resolved, (pool = []));
  return pool;
}

function addHost(pool: NsfwWorkerHost[], workerPath: string | undefined): NsfwWorkerHost {
  const host = new WorkerHost<NsfwWorkerRequest, NsfwWorkerResult>({
    name: "the nsfwjs worker",
    script: path.resolve(workerPath ?? defaultNsfwWorkerPath()),
    workerOptions: {
      execArgv: [],
      name: `nsfwjs-${pool.length}`,
      env: { ...process.env, SIEVE_NSFW_THREADS: String(config().classifiers.imageModelThreads) },
    },
    // onnxruntime must not run on a thread that may be terminated (see nsfw-worker.mjs).
    isolation: "process",
    protocol,
    requestTimeoutMs: NSFW_WORKER_HANG_MS,
    onAbandon: "let-finish",
  });
  pool.push(host);
  return host;
}

const load = (host: NsfwWorkerHost) => {
  const info = host.info();
  return (info.inFlight ? 1 : 0) + info.queued;
};

/** The worker for the next request: an idle one, else a new one while the pool has room, else the least busy. */
export function nsfwWorkerHost(workerPath: string | undefined): NsfwWorkerHost {
  const pool = poolOf(workerPath);
  let best = pool[0];
  for (const host of pool) if (load(host) < load(best!)) best = host;
  if (best && load(best) === 0) return best;
  if (pool.length < config().classifiers.imageModelWorkers) return addHost(pool, workerPath);
  return best!;
}

/** Every worker of the pool, started: for warm-up. */
function allHosts(workerPath: string | undefined): NsfwWorkerHost[] {
  const pool = poolOf(workerPath);
  while (pool.length < config().classifiers.imageModelWorkers) addHost(pool, workerPath);
  return pool;
}

export function modelName(info: NsfwWorkerInfo): string {
  return `nsfwjs-${info.nsfwjsVersion}-${info.model.toLowerCase()}-${info.size}`;
}

/**
 * Starts the worker and loads the model now instead of on the first classification.
 * Resolves with the model load time (of this worker) or rejects (ProviderError "network").
 */
export async function warmUpNsfw(options: { workerPath?: string } = {}): Promise<{ loadMs: number; model: string }> {
  try {
    const replies = await Promise.all(allHosts(options.workerPath).map((host) => host.request({ type: "load" })));
    return { loadMs: Math.round(Math.max(...replies.map((reply) => reply.loadMs ?? 0))), model: modelName(replies[0]!.info) };
  } catch (error) {
    throw new ProviderError(NSFW_PROVIDER_ID, "network", `model load failed: ${errorMessage(error)}`, { cause: error });
  }
}

/** Terminates the worker(s); pending requests fail. A later classification starts a new worker. */
export async function shutdownNsfw(): Promise<void> {
  await Promise.all([...pools.values()].flat().map((h) => h.shutdown()));
}

/** For tests only: the pool's first worker (a lone request goes to it). */
const firstHost = (workerPath?: string) => poolOf(workerPath)[0] ?? addHost(poolOf(workerPath), workerPath);
export const __nsfwTestHooks = {
  state: (workerPath?: string) => {
    const info = firstHost(workerPath).info();
    return { running: info.state !== "stopped", threadId: info.threadId, inFlight: info.inFlight, queued: info.queued, restarts: info.failures };
  },
  /** Kills the worker as a crash would (terminate from outside, even mid-request). */
  terminateWorker: async (workerPath?: string) => {
    await firstHost(workerPath).thread?.terminate();
  },
  /** Makes the worker throw an uncaught exception. */
  crashWorker: (workerPath?: string) => firstHost(workerPath).thread?.postMessage({ type: "crash" }),
};
