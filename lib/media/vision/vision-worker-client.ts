import path from "node:path";
import { processSingleton } from "@/lib/core/singleton";
import { WorkerHost, type WorkerAnswer, type WorkerProtocol } from "@/lib/core/worker-host";

/**
 * The main-thread side of vision-worker.mjs: its message protocol and the one worker that runs the
 * object and face models. The worker starts lazily (or with warmUpVision()), loads the models on
 * its first request (~0.5 s) and takes requests one at a time in call order; one that crashes or
 * exits is replaced on the next request, one that has not answered a request within
 * VISION_WORKER_HANG_MS is terminated and replaced. A request a caller gives up on while the worker
 * runs it is left to finish (one inference is ~0.15 s), its answer dropped.
 */

/** A worker that has not answered one request after this long is terminated and replaced. */
export const VISION_WORKER_HANG_MS = 60_000;

export function defaultVisionWorkerPath(): string {
  return path.resolve(/*turbopackIgnore: true*/ process.cwd(), "lib/media/vision/vision-worker.mjs");
}

export interface VisionWorkerInfo {
  tfjsVersion: string;
  backend: string;
}

export type VisionWorkerRequest =
  | { type: "load"; objectSize: number }
  | { type: "detect"; objectSize: number; objects: ArrayBuffer; faces: ArrayBuffer; floor: number };

/** A successful answer: `loadMs` for "load"; flat detection rows for "detect" (see the worker's header). */
export interface VisionWorkerResult {
  info: VisionWorkerInfo;
  loadMs?: number;
  objects?: number[];
  faces?: number[];
  /** Inference times in the worker ("detect"). */
  ms?: { objects: number; faces: number };
}

const protocol: WorkerProtocol<VisionWorkerRequest, VisionWorkerResult> = {
  encode: (id, request) => ({ id, ...request }),
  decode: (message): WorkerAnswer<VisionWorkerResult> | null => {
    const reply = message as { id?: unknown; ok?: unknown; error?: unknown } | null;
    if (typeof reply?.id !== "number") return null;
    return reply.ok ? { id: reply.id, ok: true, result: reply as unknown as VisionWorkerResult } : { id: reply.id, ok: false, error: String(reply.error) };
  },
};

type VisionWorkerHost = WorkerHost<VisionWorkerRequest, VisionWorkerResult>;

// Process-wide, so a module re-evaluation (Next.js dev reloads) reuses the running worker instead
// of leaking another one. One host per worker script (tests may start their own script).
const hosts = processSingleton("media.vision.hosts", () => new Map<string, VisionWorkerHost>());

export function visionWorkerHost(workerPath?: string): VisionWorkerHost {
  const script = path.resolve(workerPath ?? defaultVisionWorkerPath());
  let host = hosts.get(script);
  if (!host) {
    host = new WorkerHost<VisionWorkerRequest, VisionWorkerResult>({
      name: "the vision worker",
      script,
      workerOptions: { execArgv: [], name: "vision" },
      protocol,
      requestTimeoutMs: VISION_WORKER_HANG_MS,
      onAbandon: "let-finish",
    });
    hosts.set(script, host);
  }
  return host;
}

/** Terminates the worker(s); pending requests fail. A later request starts a new worker. */
export async function shutdownVision(): Promise<void> {
  await Promise.all([...hosts.values()].map((host) => host.shutdown()));
}

/** For tests only. */
export const __visionTestHooks = {
  state: (workerPath?: string) => {
    const info = visionWorkerHost(workerPath).info();
    return { running: info.state !== "stopped", threadId: info.threadId, inFlight: info.inFlight, starts: info.starts, failures: info.failures };
  },
  /** Kills the worker as a crash would (terminate from outside, even mid-request). */
  terminateWorker: async (workerPath?: string) => {
    await visionWorkerHost(workerPath).thread?.terminate();
  },
  /** Makes the worker throw an uncaught exception. */
  crashWorker: (workerPath?: string) => visionWorkerHost(workerPath).thread?.postMessage({ type: "crash" }),
};
