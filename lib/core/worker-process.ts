import { fork, type ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { Worker, type WorkerOptions } from "node:worker_threads";

export type HostedWorker = Worker | ProcessWorker;

/**
 * Starts a worker script on a worker thread ("thread") or as a child process ("process"), for
 * native code that may abort the whole process when its thread is terminated mid-call. A process
 * takes only `execArgv` and an `env` object of the options, and gets copies of transfers.
 */
export function startWorker(script: string | URL, options: WorkerOptions | undefined, isolation: "thread" | "process" = "thread"): HostedWorker {
  if (isolation === "thread") return new Worker(script, options);
  const env = typeof options?.env === "object" ? (options.env as NodeJS.ProcessEnv) : undefined;
  return new ProcessWorker(script, { execArgv: options?.execArgv, env });
}

/**
 * A child process with the surface of a worker thread that WorkerHost uses: postMessage, the
 * message/error/exit events, terminate, ref/unref.
 *
 * Why a process: a native addon running on a worker thread (onnxruntime) can abort the whole
 * process when the thread is terminated mid-call ("terminate called after throwing Napi::Error").
 * A killed process cannot take its parent down.
 *
 * - Messages use the "advanced" serialization (structured clone), so ArrayBuffers and typed arrays
 *   arrive as they do in a thread, copied rather than transferred.
 * - The child should exit when its channel closes (see `connectToParent` in worker scripts), so a
 *   parent that dies, even by SIGKILL, leaves no orphan.
 * - `exit` gives the exit code, or the signal's name when it was killed.
 */
export class ProcessWorker extends EventEmitter {
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;

  constructor(script: string | URL, options: { execArgv?: string[]; env?: NodeJS.ProcessEnv | undefined } = {}) {
    super();
    const child = fork(script, [], {
      serialization: "advanced",
      execArgv: options.execArgv ?? [],
      env: options.env ?? process.env,
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    this.#child = child;
    this.#exited = new Promise((resolve) => child.once("exit", () => resolve()));
    child.on("message", (message) => this.emit("message", message));
    child.on("error", (error) => this.emit("error", error));
    child.once("exit", (code, signal) => this.emit("exit", code ?? signal ?? "unknown"));
  }

  /** The process id (a thread's `threadId` in WorkerHost's info). */
  get threadId(): number | undefined {
    return this.#child.pid;
  }

  /** Throws when the channel is closed; a send that fails later kills the child (its exit fails the request). */
  postMessage(message: unknown, _transfer?: unknown): void {
    if (!this.#child.connected) throw new Error("the worker process is not connected");
    this.#child.send(message as never, (error) => {
      if (error) this.#child.kill("SIGKILL");
    });
  }

  terminate(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill("SIGKILL");
    return this.#exited;
  }

  ref(): void {
    this.#child.ref();
    this.#child.channel?.ref();
  }

  unref(): void {
    this.#child.unref();
    this.#child.channel?.unref();
  }
}
