import cluster, { type Worker } from "node:cluster";
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { config } from "@/lib/core/config";
import { ApiError, isApiError, type ErrorCode } from "@/lib/core/errors";
import { answerApiError, answerClientError } from "@/lib/server/malformed-requests";

/*
 * CDN serving processes: child processes of the server (Node's cluster, round-robin over one
 * listening socket) that answer only the CDN, on a port of their own (CDN_PORT). Serving a cached
 * image costs a few microseconds of JavaScript but a kernel copy of the whole body, so one process
 * sharing its core with Next.js, the pipeline and the executor tops out well below a static file
 * server (bench/cdn.ts); these processes load no Next.js and no models, and use the other cores.
 * The main port keeps serving /cdn/v1 too (below Next.js), so every CDN URL works on either port;
 * point CDN_BASE_URL (or the CDN host in front) at this one. Every request still checks the asset's
 * current state: each process keeps its own state cache, kept current by NOTIFY. What a serving
 * process cannot answer from its own memory it may ask of the main process (`askMainProcess`:
 * the CDN sends its transforms there, so each runs once, within one process's memory bounds).
 */

/** A process dies this often within RESTART_WINDOW_MS before it is given up on. */
const MAX_QUICK_RESTARTS = 3;
const RESTART_WINDOW_MS = 10_000;
const STOP_GRACE_MS = 5_000;

export interface CdnProcesses {
  /** The port they listen on (the one given, or the one a CDN_PORT=0 start was given). */
  port: number;
  count: number;
  stop(): Promise<void>;
}

/** A question of a serving process, answered by the main process's `answer` hook. */
interface Ask {
  kind: "ask";
  id: number;
  question: unknown;
}

interface Answer {
  kind: "answer";
  id: number;
  value?: unknown;
  error?: { message: string; code?: ErrorCode; headers?: Record<string, string> };
}

/**
 * Starts `count` serving processes running `entry` (a module that calls runCdnProcess) and waits
 * until they listen; `answer` answers what they ask (askMainProcess). Returns null, with the reason
 * logged, when they cannot start (the port is taken, say): the server then runs without them.
 */
export async function startCdnProcesses(
  entry: string,
  count: number,
  port: number,
  answer: (question: unknown) => Promise<unknown>,
): Promise<CdnProcesses | null> {
  // "advanced": Buffers travel as bytes (structured clone), not as JSON arrays of numbers.
  cluster.setupPrimary({ exec: entry, args: [], execArgv: process.execArgv, serialization: "advanced" });
  const workers = new Set<Worker>();
  let stopping = false;
  let boundPort = port;
  const restarts: number[] = [];

  const fork = (): Promise<Worker> =>
    new Promise((resolve, reject) => {
      // A replacement listens where the others did (the port a CDN_PORT=0 start was given).
      const worker = cluster.fork({ CDN_PORT: String(boundPort) });
      workers.add(worker);
      worker.on("message", (message: Ask) => {
        if (message?.kind === "ask") void answerAsk(worker, message, answer);
      });
      const failed = (why: string) => reject(new Error(why));
      worker.once("message", (message: { kind?: string; port?: number; error?: string }) => {
        if (message.kind === "listening") {
          boundPort = message.port ?? boundPort;
          worker.removeAllListeners("exit");
          worker.once("exit", (code, signal) => onExit(worker, code, signal));
          resolve(worker);
        } else failed(message.error ?? "it did not start");
      });
      worker.once("exit", (code, signal) => {
        workers.delete(worker);
        failed(`it exited (${signal ?? `code ${code}`}) before listening`);
      });
    });

  const onExit = (worker: Worker, code: number | null, signal: string | null) => {
    workers.delete(worker);
    if (stopping) return;
    const now = Date.now();
    restarts.push(now);
    while (restarts.length > 0 && (restarts[0] as number) < now - RESTART_WINDOW_MS) restarts.shift();
    if (restarts.length > MAX_QUICK_RESTARTS) {
      console.error(`[sieve] a CDN process exited (${signal ?? `code ${code}`}) again: not restarted; /cdn/v1 stays served on the main port`);
      return;
    }
    console.error(`[sieve] a CDN process exited (${signal ?? `code ${code}`}): starting another`);
    fork().catch((error: Error) => console.error(`[sieve] a CDN process could not be restarted: ${error.message}`));
  };

  const stop = async () => {
    stopping = true;
    await Promise.all([...workers].map((worker) => stopWorker(worker)));
  };
  try {
    // All at once: in a cluster every process listening on one address and port shares its socket
    // (port 0 included, so they all get the same free port).
    await Promise.all(Array.from({ length: count }, fork));
  } catch (error) {
    console.error(`[sieve] CDN processes not started (${(error as Error).message}); /cdn/v1 is served on the main port only`);
    await stop();
    return null;
  }
  return { port: boundPort, count, stop };
}

async function answerAsk(worker: Worker, ask: Ask, answer: (question: unknown) => Promise<unknown>): Promise<void> {
  let reply: Answer;
  try {
    reply = { kind: "answer", id: ask.id, value: await answer(ask.question) };
  } catch (error) {
    const e = error as Error;
    reply = { kind: "answer", id: ask.id, error: isApiError(e) ? { message: e.message, code: e.code, headers: e.headers } : { message: e.message } };
  }
  // A process that died meanwhile is not waiting any more (a failed send is nobody's loss).
  if (!worker.isDead()) worker.send(reply, () => undefined);
}

function stopWorker(worker: Worker): Promise<void> {
  if (worker.isDead()) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => worker.process.kill("SIGKILL"), STOP_GRACE_MS);
    worker.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    worker.process.kill("SIGTERM");
  });
}

export interface CdnProcessHooks {
  /** Before listening: caches and their change listeners. */
  prepare(): Promise<void>;
  /** Answers a CDN request and returns true, or returns false for any other path. */
  dispatch(req: http.IncomingMessage, res: http.ServerResponse, requestId: string): boolean;
  stop(): Promise<void>;
}

const asked = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
let lastAsk = 0;

/** From a serving process: the main process's answer to `question` (its `answer` hook). */
export function askMainProcess<T>(question: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const id = ++lastAsk;
    asked.set(id, { resolve: resolve as (value: unknown) => void, reject });
    const ask: Ask = { kind: "ask", id, question };
    process.send?.(ask, undefined, undefined, (error: Error | null) => {
      if (!error) return;
      asked.delete(id);
      reject(error);
    });
  });
}

function onAnswer(message: Answer): void {
  if (message?.kind !== "answer") return;
  const waiting = asked.get(message.id);
  if (!waiting) return;
  asked.delete(message.id);
  const e = message.error;
  if (!e) waiting.resolve(message.value);
  else waiting.reject(e.code ? new ApiError(e.code, e.message, { headers: e.headers }) : new Error(e.message));
}

/** The body of a serving process: an HTTP server that answers the CDN and 404s everything else. */
export async function runCdnProcess(hooks: CdnProcessHooks): Promise<void> {
  const cfg = config();
  process.on("message", onAnswer);
  await hooks.prepare();
  const server = http.createServer((req, res) => {
    const requestId = randomUUID();
    if (hooks.dispatch(req, res, requestId)) return;
    answerApiError(res, new ApiError("request/route-not-found", "This port serves only the CDN (/cdn/v1); the API is on the main port."), requestId);
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => answerClientError(error, socket, randomUUID()));
  server.keepAliveTimeout = 65_000;
  const port = cfg.cdn.port;
  server.once("error", (error) => {
    process.send?.({ kind: "failed", error: `cannot listen on ${cfg.host}:${port}: ${error.message}` });
    process.exit(1);
  });
  server.listen(port, cfg.host, () => process.send?.({ kind: "listening", port: (server.address() as AddressInfo).port }));
  // Ctrl-C reaches the whole process group: the main process decides when this one stops (SIGTERM).
  process.on("SIGINT", () => undefined);
  process.once("SIGTERM", () => {
    server.closeIdleConnections();
    server.close();
    void hooks.stop().finally(() => process.exit(0));
  });
}
