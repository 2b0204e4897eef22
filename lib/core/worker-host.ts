import type { TransferListItem, WorkerOptions } from "node:worker_threads";
import { errorMessage } from "@/lib/core/errors";
import { startWorker, type HostedWorker } from "@/lib/core/worker-process";

/**
 * One worker thread (or child process) behind a request queue, for engines that must not run on the
 * main event loop (OCR, image classification).
 *
 * - The worker starts lazily (or with `warmUp()`): spawned from its script, then prepared by the
 *   optional `initialize` step (e.g. loading a model) within `startTimeoutMs`. Waiting for a start
 *   never cancels it: a request that gives up leaves the start to the next one.
 * - Requests are sent one at a time, in call order, tagged with an id that the worker echoes in its
 *   answer (`protocol` maps both ways, so a worker with its own message format fits too). Answers
 *   nobody waits for any more are dropped.
 * - A worker that crashes or exits fails the requests it holds ("died") and is replaced on the next
 *   request; so is one that does not answer within `requestTimeoutMs` ("timeout"). An `error`
 *   listener stays on every worker: an uncaught error in the thread must never crash this process.
 * - A caller that aborts gets its signal's reason at once. A request the worker is running then
 *   either finishes unseen or costs the worker, as `onAbandon` says.
 * - The thread keeps the process alive only while there is work (a start or requests) in progress.
 * - `shutdown()` fails every pending request ("shut-down") and terminates the worker; a later
 *   request starts a new one.
 */

export type WorkerHostErrorCode =
  /** The worker could not be created, died while starting, or `initialize` failed or ran out of time. */
  | "start-failed"
  /** The worker crashed or exited while the request was pending. */
  | "died"
  /** The worker did not answer within `requestTimeoutMs`; it was replaced. */
  | "timeout"
  /** The worker answered with an error (the message is its own), or the request could not be sent. */
  | "failed"
  /** shutdown() stopped the worker while the request was pending. */
  | "shut-down";

export class WorkerHostError extends Error {
  override readonly name = "WorkerHostError";
  constructor(readonly code: WorkerHostErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** A worker's answer to the request with this id. */
export type WorkerAnswer<Result> = { id: number; ok: true; result: Result } | { id: number; ok: false; error: string };

export interface WorkerProtocol<Request, Result> {
  /** The message that asks the worker for `request`; its answer must carry the same id. */
  encode(id: number, request: Request): unknown;
  /** The answer in a message from the worker, or null for messages that answer nothing (progress). */
  decode(message: unknown): WorkerAnswer<Result> | null;
}

export interface WorkerHostOptions<Request, Result> {
  /** Names the worker in error messages, e.g. "the nsfwjs worker". */
  name: string;
  /** The worker script; a function is called at every start, so a changed setting reaches the next worker. */
  script: string | URL | (() => string | URL);
  workerOptions?: WorkerOptions;
  /** "thread" (default) or "process": see startWorker in lib/core/worker-process.ts. */
  isolation?: "thread" | "process";
  protocol: WorkerProtocol<Request, Result>;
  /** Prepares each new worker before it takes requests; part of its start. */
  initialize?: (send: (request: Request) => Promise<Result>) => Promise<void>;
  /** Budget for a start including `initialize`. Default 60 s. */
  startTimeoutMs?: number;
  /** A request unanswered this long after it was sent means a hung worker. Default: no limit. */
  requestTimeoutMs?: number;
  /**
   * When a caller aborts a request the worker is already running: "let-finish" lets the worker
   * complete it (the answer is dropped, the next request waits for it); "replace" terminates the
   * worker, for work that cannot be interrupted and would hold up the queue.
   */
  onAbandon: "let-finish" | "replace";
  /** Replace a worker once it answered with an error (its state may be broken). Default false. */
  replaceAfterError?: boolean;
}

export interface WorkerRequestOptions {
  /** Aborting rejects the request with the signal's reason (see `onAbandon`). */
  signal?: AbortSignal;
  /** Moved to the worker instead of copied. */
  transfer?: readonly TransferListItem[];
}

export interface WorkerHostInfo {
  state: "stopped" | "starting" | "ready";
  /** The thread id, or the process id with isolation "process". */
  threadId: number | undefined;
  /** A request is being answered, or waits for the worker to start. */
  inFlight: boolean;
  queued: number;
  /** Workers started so far. */
  starts: number;
  /** Workers lost to a crash, an exit, a hang, a failed start or an error answer (not to shutdown()). */
  failures: number;
  /** Workers terminated because a caller gave up on the request they were running ("replace"). */
  abandoned: number;
  /** How long the last successful start took (spawn and initialize), in ms. */
  lastStartMs: number | null;
}

const DEFAULT_START_TIMEOUT_MS = 60_000;

type Outcome<Result> = { ok: true; result: Result } | { ok: false; error: unknown };

interface Session<Result> {
  worker: HostedWorker;
  ready: boolean;
  /** Why the worker is no longer used; null while it is. */
  retired: WorkerHostError | null;
  /** Rejects with that reason once it is retired. */
  stopped: Promise<never>;
  stop(reason: WorkerHostError): void;
  terminated?: Promise<void>;
  /** Who waits for which answer. */
  pending: Map<number, (outcome: Outcome<Result>) => void>;
  lastError?: Error;
}

interface Job<Request, Result> {
  request: Request;
  options: WorkerRequestOptions;
  resolve(result: Result): void;
  reject(error: unknown): void;
  settled: boolean;
  /** The worker it was sent to; unset while it waits. */
  session?: Session<Result>;
  timer?: NodeJS.Timeout;
  onAbort(): void;
}

export class WorkerHost<Request, Result> {
  readonly #options: WorkerHostOptions<Request, Result>;
  #session: Session<Result> | null = null;
  #starting: Promise<Session<Result>> | null = null;
  readonly #queue: Job<Request, Result>[] = [];
  #current: Job<Request, Result> | null = null;
  #nextId = 1;
  readonly #stats = { starts: 0, failures: 0, abandoned: 0, lastStartMs: null as number | null };

  constructor(options: WorkerHostOptions<Request, Result>) {
    this.#options = options;
  }

  /** Resolves with the worker's answer to `request`, sent once every earlier request is answered. */
  request(request: Request, options: WorkerRequestOptions = {}): Promise<Result> {
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Result>((resolve, reject) => {
      const job: Job<Request, Result> = { request, options, resolve, reject, settled: false, onAbort: () => this.#abandon(job) };
      signal?.addEventListener("abort", job.onAbort, { once: true });
      this.#queue.push(job);
      this.#pump();
    });
  }

  /** Starts the worker now instead of with the first request. */
  async warmUp(): Promise<void> {
    await this.#ensureStarted();
  }

  /** Fails every pending request with "shut-down" and terminates the worker. */
  async shutdown(): Promise<void> {
    const error = new WorkerHostError("shut-down", `${this.#options.name} was shut down`);
    for (const job of this.#queue.splice(0)) this.#settle(job, { ok: false, error });
    if (this.#current) this.#settle(this.#current, { ok: false, error });
    this.#current = null;
    this.#starting = null; // a start in progress fails with the session below
    const session = this.#session;
    if (session) await this.#retire(session, error);
  }

  info(): WorkerHostInfo {
    const session = this.#session;
    return {
      state: session ? (session.ready ? "ready" : "starting") : "stopped",
      threadId: session?.worker.threadId,
      inFlight: this.#current !== null,
      queued: this.#queue.length,
      ...this.#stats,
    };
  }

  /** The running thread or process, for tests that need to crash or kill it from outside. */
  get thread(): HostedWorker | undefined {
    return this.#session?.worker;
  }

  #pump(): void {
    if (!this.#current) {
      const job = this.#queue.shift();
      if (job) {
        this.#current = job;
        this.#dispatch(job);
      }
    }
    this.#updateRef();
  }

  #dispatch(job: Job<Request, Result>): void {
    this.#ensureStarted().then(
      (session) => {
        if (this.#current !== job) return; // abandoned while waiting
        // Retired between the start and now: the request never reached it, so start another.
        if (session.retired) this.#dispatch(job);
        else this.#send(session, job);
      },
      (error: unknown) => {
        if (this.#current === job) this.#finish(job, { ok: false, error });
      },
    );
  }

  #send(session: Session<Result>, job: Job<Request, Result>): void {
    job.session = session;
    const timeoutMs = this.#options.requestTimeoutMs;
    if (timeoutMs !== undefined) {
      job.timer = setTimeout(() => {
        const error = new WorkerHostError("timeout", `${this.#options.name} did not answer within ${timeoutMs} ms`);
        void this.#retire(session, error, "failures");
      }, timeoutMs);
      job.timer.unref();
    }
    this.#post(session, job.request, job.options.transfer, (outcome) => this.#finish(job, outcome));
  }

  /** Registers who waits for the answer, then sends; a message that cannot be sent fails at once. */
  #post(session: Session<Result>, request: Request, transfer: readonly TransferListItem[] | undefined, onOutcome: (outcome: Outcome<Result>) => void): void {
    const id = this.#nextId++;
    session.pending.set(id, onOutcome);
    try {
      session.worker.postMessage(this.#options.protocol.encode(id, request), transfer);
    } catch (error) {
      session.pending.delete(id);
      const message = `cannot send the request to ${this.#options.name}: ${errorMessage(error)}`;
      onOutcome({ ok: false, error: new WorkerHostError("failed", message, { cause: error }) });
    }
  }

  #finish(job: Job<Request, Result>, outcome: Outcome<Result>): void {
    clearTimeout(job.timer);
    if (this.#current === job) this.#current = null;
    this.#settle(job, outcome);
    this.#pump();
  }

  #settle(job: Job<Request, Result>, outcome: Outcome<Result>): void {
    if (job.settled) return;
    job.settled = true;
    job.options.signal?.removeEventListener("abort", job.onAbort);
    if (outcome.ok) job.resolve(outcome.result);
    else job.reject(outcome.error);
  }

  #abandon(job: Job<Request, Result>): void {
    const reason: unknown = job.options.signal?.reason;
    const queued = this.#queue.indexOf(job);
    if (queued >= 0) this.#queue.splice(queued, 1); // never sent
    const session = job.session;
    if (queued >= 0 || this.#current !== job || !session) {
      // Queued, or waiting for a start (which goes on for the next request).
      return this.#finish(job, { ok: false, error: reason });
    }
    this.#settle(job, { ok: false, error: reason });
    if (this.#options.onAbandon === "replace") {
      const error = new WorkerHostError("died", `${this.#options.name} was replaced: a caller gave up on its request`);
      void this.#retire(session, error, "abandoned"); // frees the queue through the job's pending answer
    }
    // "let-finish": the answer, or the worker's end, frees the queue.
  }

  #ensureStarted(): Promise<Session<Result>> {
    if (this.#session?.ready) return Promise.resolve(this.#session);
    if (!this.#starting) {
      const starting: Promise<Session<Result>> = this.#start().finally(() => {
        if (this.#starting === starting) this.#starting = null;
        this.#updateRef();
      });
      starting.catch(() => {}); // every waiter handles the failure itself
      this.#starting = starting;
      this.#updateRef();
    }
    return this.#starting;
  }

  async #start(): Promise<Session<Result>> {
    const { name, script } = this.#options;
    const began = performance.now();
    let worker: HostedWorker;
    try {
      worker = startWorker(typeof script === "function" ? script() : script, this.#options.workerOptions, this.#options.isolation);
    } catch (error) {
      this.#stats.failures++;
      throw new WorkerHostError("start-failed", `${name} could not be started: ${errorMessage(error)}`, { cause: error });
    }
    this.#stats.starts++;
    const session = this.#attach(worker);
    this.#session = session;
    this.#updateRef();
    if (this.#options.initialize) await this.#initialize(session, this.#options.initialize);
    session.ready = true;
    this.#stats.lastStartMs = Math.round(performance.now() - began);
    return session;
  }

  /** Prepares a new worker within the start budget; one that fails is retired. */
  async #initialize(session: Session<Result>, initialize: NonNullable<WorkerHostOptions<Request, Result>["initialize"]>): Promise<void> {
    const { name } = this.#options;
    const timeoutMs = this.#options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    const timer = setTimeout(() => {
      void this.#retire(session, new WorkerHostError("start-failed", `${name} did not start within ${timeoutMs} ms`), "failures");
    }, timeoutMs);
    const send = (request: Request) =>
      new Promise<Result>((resolve, reject) => {
        if (session.retired) reject(session.retired);
        else this.#post(session, request, undefined, (outcome) => (outcome.ok ? resolve(outcome.result) : reject(outcome.error)));
      });
    try {
      // Raced with the worker's retirement: nothing `initialize` waits for outlasts the budget or a shutdown.
      await Promise.race([initialize(send), session.stopped]);
    } catch (error) {
      // A start stopped from outside (shutdown, timeout, death) keeps that reason.
      const stopped = session.retired?.code === "failed" ? null : session.retired;
      const failure = stopped ?? new WorkerHostError("start-failed", `${name} failed to start: ${errorMessage(error)}`, { cause: error });
      void this.#retire(session, failure, "failures");
      throw failure;
    } finally {
      clearTimeout(timer);
    }
  }

  #attach(worker: HostedWorker): Session<Result> {
    let stop!: (reason: WorkerHostError) => void;
    const stopped = new Promise<never>((_, reject) => (stop = reject));
    stopped.catch(() => {}); // observed through races only
    const session: Session<Result> = { worker, ready: false, retired: null, stopped, stop, pending: new Map() };
    const lost = (what: string, cause?: Error) =>
      new WorkerHostError(session.ready ? "died" : "start-failed", `${this.#options.name} ${what}`, { cause });
    worker.on("message", (message: unknown) => this.#onMessage(session, message));
    worker.on("messageerror", (error: Error) => (session.lastError = error));
    worker.on("error", (error: Error) => {
      session.lastError = error;
      void this.#retire(session, lost(`crashed: ${error.message}`, error), "failures");
    });
    worker.on("exit", (code: number | string) => {
      const why = session.lastError ? `: ${session.lastError.message}` : "";
      void this.#retire(session, lost(`exited (code ${code})${why}`, session.lastError), "failures");
    });
    worker.unref();
    return session;
  }

  #onMessage(session: Session<Result>, message: unknown): void {
    let answer: WorkerAnswer<Result> | null = null;
    try {
      answer = this.#options.protocol.decode(message);
    } catch {
      // not an answer we understand
    }
    const onOutcome = answer ? session.pending.get(answer.id) : undefined;
    if (!answer || !onOutcome) return;
    session.pending.delete(answer.id);
    if (answer.ok) return onOutcome({ ok: true, result: answer.result });
    const error = new WorkerHostError("failed", answer.error);
    // Retire first, so the next request (started by onOutcome) goes to a new worker.
    if (this.#options.replaceAfterError) void this.#retire(session, error, "failures");
    onOutcome({ ok: false, error });
  }

  /** Stops using the worker: fails what it holds and terminates it. Idempotent per worker. */
  #retire(session: Session<Result>, reason: WorkerHostError, count?: "failures" | "abandoned"): Promise<void> {
    if (!session.retired) {
      session.retired = reason;
      session.stop(reason);
      if (count) this.#stats[count]++;
      if (this.#session === session) this.#session = null;
      session.terminated = session.worker.terminate().then(() => undefined, () => undefined);
      const waiting = [...session.pending.values()];
      session.pending.clear();
      for (const onOutcome of waiting) onOutcome({ ok: false, error: reason });
      this.#updateRef();
    }
    return session.terminated!;
  }

  /** Keeps the process alive only while there is work in progress. */
  #updateRef(): void {
    const worker = this.#session?.worker;
    if (!worker) return;
    if (this.#current || this.#queue.length > 0 || this.#starting) worker.ref();
    else worker.unref();
  }
}
