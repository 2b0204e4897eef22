import path from "node:path";
import { processSingleton } from "@/lib/core/singleton";
import { WorkerHost, type WorkerAnswer, type WorkerProtocol } from "@/lib/core/worker-host";
import { ProviderError } from "../providers/types";
import { NSFW_PROVIDER_ID } from "./nsfw-model";
import { errorMessage } from "@/lib/core/errors";

/**
 * The main-thread side of nsfw-worker.mjs: its message protocol, and one WorkerHost per worker
 * script (requests sent one at a time; a crashed worker is replaced on the next request, a hung
 * one after NSFW_WORKER_HANG_MS; a request abandoned in flight is left to finish).
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
  tfjsVersion: string;
  backend: string;
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
const hosts = processSingleton("moderation.nsfwjs.hosts", () => new Map<string, NsfwWorkerHost>());

export function nsfwWorkerHost(workerPath: string | undefined): NsfwWorkerHost {
  const resolved = path.resolve(workerPath ?? defaultNsfwWorkerPath());
  let host = hosts.get(resolved);
  if (!host) {
    host = new WorkerHost({
      name: "the nsfwjs worker",
      script: resolved,
      workerOptions: { execArgv: [], name: "nsfwjs" },
      protocol,
      requestTimeoutMs: NSFW_WORKER_HANG_MS,
      onAbandon: "let-finish",
    });
    hosts.set(resolved, host);
  }
  return host;
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
    const reply = await nsfwWorkerHost(options.workerPath).request({ type: "load" });
    return { loadMs: Math.round(reply.loadMs ?? 0), model: modelName(reply.info) };
  } catch (error) {
    throw new ProviderError(NSFW_PROVIDER_ID, "network", `model load failed: ${errorMessage(error)}`, { cause: error });
  }
}

/** Terminates the worker(s); pending requests fail. A later classification starts a new worker. */
export async function shutdownNsfw(): Promise<void> {
  await Promise.all([...hosts.values()].map((h) => h.shutdown()));
}

/** For tests only. */
export const __nsfwTestHooks = {
  state: (workerPath?: string) => {
    const info = nsfwWorkerHost(workerPath).info();
    return { running: info.state !== "stopped", threadId: info.threadId, inFlight: info.inFlight, queued: info.queued, restarts: info.failures };
  },
  /** Kills the worker as a crash would (terminate from outside, even mid-request). */
  terminateWorker: async (workerPath?: string) => {
    await nsfwWorkerHost(workerPath).thread?.terminate();
  },
  /** Makes the worker throw an uncaught exception. */
  crashWorker: (workerPath?: string) => nsfwWorkerHost(workerPath).thread?.postMessage({ type: "crash" }),
};
