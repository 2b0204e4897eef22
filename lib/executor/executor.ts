import crypto from "node:crypto";
import type http from "node:http";
import type { AddressInfo } from "node:net";
import { withTransaction } from "@/lib/db/transaction";
import { claimRuns, renewLeases } from "./claiming";
import { resolveOptions, type ExecutorContext, type ExecutorOptions } from "./context";
import { formDueBatches } from "./batching";
import { dispatchEvents } from "./dispatch";
import { createEventApiServer } from "./event-api";
import { parseFunctionConfig, type FunctionDefinition } from "./functions";
import { finishRun, saveRun } from "./persistence";
import { syncFunctions } from "./protocol";
import { runRound } from "./step-results";
import { insertNewEvents, type EventPayload, type Memo, type PlannedStep, type RunRow } from "./store";

export type { ExecutorOptions } from "./context";

const MAX_CALLS_PER_CLAIM = 100;

/**
 * The embedded Inngest executor: used when no Inngest server is configured. It serves the event
 * API (`POST /e/<event key>`) on a loopback port, keeps runs in PostgreSQL, and drives our own
 * serve() endpoint over the wire protocol, so the SDK keeps owning step semantics. Several
 * processes can share one database: runs are claimed with leases (`FOR UPDATE SKIP LOCKED`) and
 * every write is conditioned on the lease.
 *
 * This class is the lifecycle and the run loop; the event API (event-api.ts), event dispatch
 * (dispatch.ts), claiming and admission (claiming.ts), a round of calls (step-results.ts), the ops
 * that block a run (blocking-ops.ts) and writing outcomes (persistence.ts) live beside it.
 */
export class EmbeddedExecutor {
  readonly workerId = `${process.pid}-${crypto.randomBytes(4).toString("hex")}`;
  private readonly functions = new Map<string, FunctionDefinition>();
  private server: http.Server | undefined;
  private eventApiUrl: string | undefined;
  private running = new Set<Promise<void>>();
  private active = new Set<string>();
  private stopped = false;
  private wakeUp: (() => void) | undefined;
  /** Set by wake(); a wake during a claim must not be lost. */
  private woken = false;
  private loopDone: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly ctx: ExecutorContext;

  setServeUrl(url: string): void {
    this.ctx.opts.serveUrl = url;
  }

  constructor(options: ExecutorOptions) {
    this.ctx = { opts: resolveOptions(options), workerId: this.workerId, functions: this.functions, warnedUnauthorized: false };
  }

  private get opts() {
    return this.ctx.opts;
  }

  private wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Starts the loopback event API; returns its base URL (the app's INNGEST_BASE_URL). */
  async listen(): Promise<string> {
    this.server = createEventApiServer(this.opts, (events) => this.sendEvents(events));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    const { port } = this.server.address() as AddressInfo;
    this.eventApiUrl = `http://127.0.0.1:${port}/`;
    return this.eventApiUrl;
  }

  /** Syncs the functions of our serve() endpoint (refusing unsupported options) and starts running. */
  async start(): Promise<void> {
    const { functions } = await syncFunctions(this.opts.serveUrl, this.opts.signingKey);
    const parsed = functions.map((raw) => parseFunctionConfig(raw as Parameters<typeof parseFunctionConfig>[0]));
    this.functions.clear();
    for (const fn of parsed) this.functions.set(fn.id, fn);
    this.heartbeat = setInterval(() => void renewLeases(this.ctx, [...this.active]), Math.max(100, this.opts.leaseMs / 3));
    this.heartbeat.unref();
    this.loopDone = this.loop();
  }

  functionIds(): string[] {
    return [...this.functions.keys()];
  }

  /** Stops claiming, lets calls in flight finish (bounded), closes the event API. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopped = true;
    this.wake();
    const settled = Promise.allSettled([...this.running]);
    await Promise.race([settled, new Promise((r) => setTimeout(r, graceMs).unref())]);
    await this.loopDone?.catch(() => undefined);
    clearInterval(this.heartbeat);
    clearTimeout(this.batchTimer);
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Records events (deduplicated by id), starts the runs they trigger and resolves waits. */
  async sendEvents(events: EventPayload[]): Promise<string[]> {
    const leased: RunRow[] = [];
    const hasRoom = () => !this.stopped && this.active.size + leased.length < this.opts.maxConcurrentRuns;
    const { forLoop, batching } = await withTransaction(this.opts.pool, async (client) =>
      dispatchEvents(this.ctx, client, await insertNewEvents(client, events), { runs: leased, hasRoom }),
    );
    for (const run of leased) this.startExecution(run);
    for (const fn of batching) this.expectDueBatches(Date.now() + fn.batch.timeoutMs);
    if (forLoop) this.wake();
    return events.map((e) => e.id);
  }

  // ---- batches (batching.ts) ----

  /** When the loop looks for due batches next: the earliest known due batch, else the next poll. */
  private batchCheckAt = 0;
  private batchTimer: NodeJS.Timeout | undefined;

  private expectDueBatches(at: number): void {
    if (at >= this.batchCheckAt) return;
    this.batchCheckAt = at;
    clearTimeout(this.batchTimer);
    this.batchTimer = setTimeout(() => this.wake(), Math.max(0, at - Date.now()) + 5);
    this.batchTimer.unref();
  }

  private async formDueBatches(): Promise<void> {
    const now = Date.now();
    if (now < this.batchCheckAt || ![...this.functions.values()].some((fn) => fn.batch)) return;
    this.batchCheckAt = Infinity;
    let nextDueAt: number | null = null;
    try {
      ({ nextDueAt } = await formDueBatches(this.ctx));
    } catch (error) {
      if (!this.stopped) this.opts.log(`forming due batches failed: ${(error as Error).message}`);
    }
    // Batches other processes buffer are found by the poll.
    this.expectDueBatches(Math.min(nextDueAt ?? Infinity, now + this.opts.pollMs));
  }

  // ---- the run loop ----

  private async loop(): Promise<void> {
    while (!this.stopped) {
      this.woken = false;
      await this.formDueBatches();
      const free = this.opts.maxConcurrentRuns - this.active.size;
      let claimed: RunRow[] = [];
      if (free > 0) {
        try {
          claimed = await claimRuns(this.ctx, free);
        } catch (error) {
          if (!this.stopped) this.opts.log(`claiming runs failed: ${(error as Error).message}`);
        }
      }
      for (const run of claimed) this.startExecution(run);
      if (claimed.length > 0 && claimed.length === free) continue;
      if (this.woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.opts.pollMs);
        this.wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeUp = undefined;
    }
  }

  private startExecution(run: RunRow): void {
    this.active.add(run.id);
    const task = this.execute(run)
      .catch((error: unknown) => this.opts.log(`run ${run.id} (${run.function_id}): ${(error as Error).stack ?? String(error)}`))
      .finally(() => {
        this.active.delete(run.id);
        this.running.delete(task);
        this.wake();
      });
    this.running.add(task);
  }

  /** Runs a claimed run until it sleeps, waits, must back off, or ends. */
  private async execute(row: RunRow): Promise<void> {
    const run: RunRow = { ...row, steps: { ...(row.steps as Memo) }, stack: [...row.stack], planned: [...(row.planned as PlannedStep[])] };
    const fn = this.functions.get(run.function_id);
    if (!fn) {
      // During a rolling deploy another process may serve it: leave the run to it for a while,
      // and fail it only when nobody has picked it up for a day.
      if (Date.now() - run.created_at.getTime() < 86_400_000) return finishRun(this.ctx, run, { status: "queued", nextAt: Date.now() + 30_000 });
      return finishRun(this.ctx, run, { status: "failed", error: { name: "Error", message: `function ${run.function_id} is not served by any process` } });
    }

    if (run.status === "waiting" && run.wait) {
      // Only a timeout brings a waiting run here: events and finished invokes resume it directly.
      await this.opts.pool.query(`DELETE FROM executor_waits WHERE run_id = $1`, [run.id]);
      const value =
        run.wait.type === "event" ? { data: null } : { error: { name: "InngestInvokeTimeoutError", message: "Timed out waiting for the invoked function" } };
      run.steps[run.wait.stepId] = value;
      run.stack.push(run.wait.stepId);
      run.attempt = 0;
      run.wait = null;
      run.status = "queued";
    }

    for (let calls = 0; calls < MAX_CALLS_PER_CLAIM && !this.stopped; calls++) {
      const outcome = await runRound(this.ctx, fn, run);
      if (outcome === "continue") {
        if (!(await saveRun(this.ctx, run, { status: "queued", nextAt: Date.now() }, true))) return;
        continue;
      }
      await finishRun(this.ctx, run, outcome);
      return;
    }
    await saveRun(this.ctx, run, { status: "queued", nextAt: Date.now() }, false);
  }
}
