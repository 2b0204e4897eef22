import { afterEach, expect } from "vitest";
import { WorkerHost, WorkerHostError, type WorkerHostOptions } from "@/lib/core/worker-host";

// A real worker thread (inline CommonJS) speaking { id, type, value } -> { id, ok, result | error }.
export const WORKER_SOURCE = `
const { parentPort, threadId } = require("node:worker_threads");
let initialized = 0;
let active = 0;
parentPort.on("message", async ({ id, type, value }) => {
  const answer = (result) => parentPort.postMessage({ id, ok: true, result });
  active++;
  try {
    switch (type) {
      case "init": initialized++; return answer(initialized);
      case "echo": return answer({ value, threadId, initialized, concurrent: active });
      case "bytes": return answer(value.byteLength);
      case "slow": await new Promise((r) => setTimeout(r, value)); return answer({ value, concurrent: active });
      case "fail": return parentPort.postMessage({ id, ok: false, error: "the worker refused" });
      case "progress": parentPort.postMessage({ progress: 0.5 }); return answer("done");
      case "hang": return;
      case "crash": setImmediate(() => { throw new Error("boom"); }); return;
      case "exit": process.exit(3);
    }
  } finally {
    active--;
  }
});
`;

export type Request = { type: string; value?: unknown };
export type Echo = { value: unknown; threadId: number; initialized: number; concurrent: number };

const hosts: WorkerHost<Request, unknown>[] = [];

export function makeHost(options: Partial<WorkerHostOptions<Request, unknown>> = {}): WorkerHost<Request, unknown> {
  const host = new WorkerHost<Request, unknown>({
    name: "the test worker",
    script: WORKER_SOURCE,
    workerOptions: { eval: true },
    onAbandon: "let-finish",
    protocol: {
      encode: (id, request) => ({ id, ...request }),
      decode: (message) => {
        const m = message as { id?: unknown; ok?: unknown; result?: unknown; error?: unknown };
        if (typeof m.id !== "number") return null;
        return m.ok ? { id: m.id, ok: true, result: m.result } : { id: m.id, ok: false, error: String(m.error) };
      },
    },
    ...options,
  });
  hosts.push(host);
  return host;
}

export const echo = async (host: WorkerHost<Request, unknown>, value: unknown = "hi", signal?: AbortSignal) =>
  (await host.request({ type: "echo", value }, { signal })) as Echo;

export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

export async function hostError(promise: Promise<unknown>, code: WorkerHostError["code"]): Promise<WorkerHostError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(WorkerHostError);
  expect((error as WorkerHostError).code).toBe(code);
  return error as WorkerHostError;
}

afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.shutdown()));
});

