import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type pg from "pg";
import { collectStream } from "@/lib/core/streams";
import { Rollback, withTransaction } from "@/lib/db/transaction";
import { wakeTime } from "./durations";
import { parseFunctionConfig, type FunctionDefinition } from "./functions";
import { compileCached, ExpressionError } from "./expressions";
import { callFunction, syncFunctions, type Op } from "./protocol";
import { createRun, insertNewEvents, resumeWith, type EventPayload, type Memo, type PlannedStep, type RunRow, type WaitState } from "./store";

/**
 * The embedded Inngest executor: used when no Inngest server is configured. It serves the event
 * API (`POST /e/<event key>`) on a loopback port, keeps runs in PostgreSQL, and drives our own
 * serve() endpoint over the wire protocol, so the SDK keeps owning step semantics. Several
 * processes can share one database: runs are claimed with leases (`FOR UPDATE SKIP LOCKED`) and
 * every write is conditioned on the lease.
 */
export interface ExecutorOptions {
  pool: pg.Pool;
  /** Our serve() endpoint, e.g. http://127.0.0.1:3000/api/inngest (or set later with setServeUrl). */
  serveUrl?: string;
  signingKey: string;
  eventKey: string;
  maxConcurrentRuns?: number;
  leaseMs?: number;
  retryBaseMs?: number;
  stepTimeoutMs?: number;
  pollMs?: number;
  /** Log every call of the serve endpoint with its duration. */
  debug?: boolean;
  log?: (message: string) => void;
}

/** Inngest's own event API accepts up to 3 MiB per request (1 MiB per event on the free plan). */
const MAX_EVENT_BODY_BYTES = 3 * 1024 * 1024;
const DEFAULT_INVOKE_TIMEOUT_MS = 365 * 86_400_000;
const MAX_CALLS_PER_CLAIM = 100;

interface Outcome {
  status: RunRow["status"];
  nextAt?: number;
  wait?: WaitState | null;
  output?: unknown;
  error?: unknown;
  /**
   * Writes what the run waits for (the wait row, the invoked run) in the transaction that marks the
   * run waiting: an event or a finished child can only see the run once it can be resumed.
   */
  register?: (client: pg.PoolClient) => Promise<void>;
}

export class EmbeddedExecutor {
  readonly workerId = `${process.pid}-${crypto.randomBytes(4).toString("hex")}`;
  private readonly functions = new Map<string, FunctionDefinition>();
  private server: http.Server | undefined;
  private eventApiUrl: string | undefined;
  private running = new Set<Promise<void>>();
  private active = new Set<string>();
  private stopped = false;
  private wakeUp: (() => void) | undefined;
  private warnedUnauthorized = false;
  /** Set by wake(); a wake during a claim must not be lost. */
  private woken = false;
  private loopDone: Promise<void> | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly opts: Required<Omit<ExecutorOptions, "log">> & { log: (message: string) => void };

  setServeUrl(url: string): void {
    this.opts.serveUrl = url;
  }

  constructor(options: ExecutorOptions) {
    this.opts = {
      maxConcurrentRuns: 8,
      leaseMs: 15_000,
      retryBaseMs: 1_000,
      stepTimeoutMs: 10 * 60_000,
      pollMs: 500,
      debug: false,
      serveUrl: "",
      log: (message) => console.warn(`executor: ${message}`),
      ...options,
    };
  }

  private wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Starts the loopback event API; returns its base URL (the app's INNGEST_BASE_URL). */
  async listen(): Promise<string> {
    this.server = http.createServer((req, res) => void this.handleEventApi(req, res));
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
    this.heartbeat = setInterval(() => void this.renewLeases(), Math.max(100, this.opts.leaseMs / 3));
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
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Records events (deduplicated by id), starts the runs they trigger and resolves waits. */
  async sendEvents(events: EventPayload[]): Promise<string[]> {
    const leased: RunRow[] = [];
    let forLoop = false;
    await withTransaction(this.opts.pool, async (client) => {
      const fresh = await insertNewEvents(client, events);
      for (const event of fresh) if (await this.dispatch(client, event, leased)) forLoop = true;
    });
    for (const run of leased) this.startExecution(run);
    if (forLoop) this.wake();
    return events.map((e) => e.id);
  }

  /**
   * Starts the runs an event triggers; with `leased`, runs this process has room for are leased in
   * the same transaction and executed right after commit, skipping a separate claim (the path a
   * `queue=false` upload waits on).
   */
  /** Returns whether it left work for the loop (a run it did not lease, or a resumed wait). */
  private async dispatch(client: pg.PoolClient, event: EventPayload, leased?: RunRow[]): Promise<boolean> {
    let forLoop = false;
    for (const fn of this.functions.values()) {
      for (const trigger of fn.triggers) {
        if (!trigger.matches(event.name)) continue;
        if (trigger.expression && !trigger.expression({ event })) continue;
        const created = await createRun(client, { fn, event });
        if (created && leased && !this.stopped && this.active.size + leased.length < this.opts.maxConcurrentRuns) {
          const admission = { id: created.id, function_id: fn.id, concurrency_keys: created.concurrencyKeys, throttle_key: created.throttleKey, started_at: null };
          // Never wait for a lock here: concurrent sends must not queue behind each other.
          if ((await this.admissionDelay(client, admission, true)) === undefined) {
            leased.push(await this.lease(client, created.id));
            break;
          }
        }
        forLoop ||= created !== undefined;
        break;
      }
    }
    const { rows } = await client.query<{ run_id: string; step_id: string; expression: string | null; run_event: EventPayload }>(
      `SELECT run_id, step_id, expression, run_event FROM executor_waits WHERE event_name = $1 FOR UPDATE`,
      [event.name],
    );
    for (const wait of rows) {
      if (wait.expression && !compileCached(wait.expression)({ event: wait.run_event, async: event })) continue;
      await client.query(`DELETE FROM executor_waits WHERE run_id = $1 AND step_id = $2`, [wait.run_id, wait.step_id]);
      await resumeWith(client, wait.run_id, wait.step_id, { data: event });
      forLoop = true;
    }
    return forLoop;
  }

  private async handleEventApi(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    };
    const match = /^\/e\/([^/?]+)/.exec(req.url ?? "");
    if (req.method !== "POST" || !match) {
      if (this.opts.debug) this.opts.log(`event API: unsupported ${req.method} ${req.url}`);
      return reply(404, { error: "not found", status: 404 });
    }
    try {
      const given = Buffer.from(decodeURIComponent(match[1]!));
      const expected = Buffer.from(this.opts.eventKey);
      if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) return reply(401, { error: "Event key not found", status: 401 });
      const body = await collectStream(req, MAX_EVENT_BODY_BYTES, () => new Error(`event batch larger than ${MAX_EVENT_BODY_BYTES} bytes`));
      const parsed: unknown = JSON.parse(body.toString("utf8"));
      const list = (Array.isArray(parsed) ? parsed : [parsed]) as Partial<EventPayload>[];
      const events = list.map((e): EventPayload => {
        if (!e || typeof e.name !== "string" || !e.name) throw new Error("every event needs a name");
        return { ...e, id: e.id ?? crypto.randomUUID(), name: e.name, data: e.data ?? {}, ts: e.ts ?? Date.now() };
      });
      const ids = await this.sendEvents(events);
      reply(200, { ids, status: 200 });
    } catch (error) {
      reply(400, { error: (error as Error).message, status: 400 });
    }
  }

  // ---- the run loop ----

  private async loop(): Promise<void> {
    while (!this.stopped) {
      this.woken = false;
      const free = this.opts.maxConcurrentRuns - this.active.size;
      let claimed: RunRow[] = [];
      if (free > 0) {
        try {
          claimed = await this.claim(free);
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

  private async claim(limit: number): Promise<RunRow[]> {
    return withTransaction(this.opts.pool, async (client) => {
      const { rows } = await client.query<RunRow & { concurrency_keys: string[]; throttle_key: string | null; started_at: Date | null }>(
        `SELECT * FROM executor_runs
         WHERE status IN ('queued', 'waiting') AND next_at <= now() AND (lease_until IS NULL OR lease_until < now())
         ORDER BY next_at LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      const claimed: RunRow[] = [];
      for (const run of rows) {
        const delay = await this.admissionDelay(client, run);
        if (delay !== undefined) {
          await client.query(`UPDATE executor_runs SET next_at = now() + make_interval(secs => $2) WHERE id = $1`, [run.id, delay / 1000]);
          continue;
        }
        claimed.push(await this.lease(client, run.id));
      }
      return claimed;
    });
  }

  /** Takes a run for this process (inside the caller's transaction) and returns it as leased. */
  private async lease(client: pg.PoolClient, runId: string): Promise<RunRow> {
    const { rows } = await client.query<RunRow>(
      `UPDATE executor_runs SET lease_owner = $2, lease_until = now() + make_interval(secs => $3), started_at = coalesce(started_at, now())
        WHERE id = $1 RETURNING *`,
      [runId, this.workerId, this.opts.leaseMs / 1000],
    );
    return rows[0]!;
  }

  /** Concurrency (steps executing at once per key) and throttle (runs started per period). */
  private async admissionDelay(
    client: pg.PoolClient,
    run: { id: string; function_id: string; concurrency_keys: string[]; throttle_key: string | null; started_at: Date | null },
    /** Give up (admit nothing) instead of waiting when another transaction holds a key's lock. */
    tryOnly = false,
  ): Promise<number | undefined> {
    const keys = [...run.concurrency_keys].sort();
    for (const key of keys) {
      if (tryOnly) {
        const { rows } = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS ok`, [`executor:${key}`]);
        if (!rows[0]!.ok) return 0;
      } else await client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`executor:${key}`]);
      const limit = Number(key.slice(key.lastIndexOf("|") + 1));
      const { rows } = await client.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM executor_runs WHERE concurrency_keys @> ARRAY[$1] AND lease_until > now() AND id <> $2`,
        [key, run.id],
      );
      if (rows[0]!.n >= limit) return 100;
    }
    const fn = this.functions.get(run.function_id);
    if (fn?.throttle && run.throttle_key && run.started_at === null) {
      if (tryOnly) {
        const { rows } = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS ok`, [
          `executor-throttle:${run.throttle_key}`,
        ]);
        if (!rows[0]!.ok) return 0;
      } else await client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`executor-throttle:${run.throttle_key}`]);
      const capacity = fn.throttle.limit + Math.max(0, fn.throttle.burst - 1);
      const { rows } = await client.query<{ started_at: Date }>(
        `SELECT started_at FROM executor_runs WHERE throttle_key = $1 AND started_at > now() - make_interval(secs => $2)
         ORDER BY started_at DESC LIMIT $3`,
        [run.throttle_key, fn.throttle.periodMs / 1000, capacity],
      );
      if (rows.length >= capacity) return Math.max(10, rows[rows.length - 1]!.started_at.getTime() + fn.throttle.periodMs - Date.now());
    }
    return undefined;
  }

  private async renewLeases(): Promise<void> {
    if (this.active.size === 0) return;
    await this.opts.pool
      .query(`UPDATE executor_runs SET lease_until = now() + make_interval(secs => $3) WHERE lease_owner = $1 AND id = ANY($2)`, [
        this.workerId,
        [...this.active],
        this.opts.leaseMs / 1000,
      ])
      .catch((error: Error) => this.opts.log(`lease renewal failed: ${error.message}`));
  }

  private backoff(attempt: number): number {
    const base = this.opts.retryBaseMs * 2 ** Math.min(attempt, 12);
    return Math.min(base, 60 * 60_000) * (0.75 + Math.random() * 0.5);
  }

  /** Runs a claimed run until it sleeps, waits, must back off, or ends. */
  private async execute(row: RunRow): Promise<void> {
    const run: RunRow = { ...row, steps: { ...(row.steps as Memo) }, stack: [...row.stack], planned: [...(row.planned as PlannedStep[])] };
    const fn = this.functions.get(run.function_id);
    if (!fn) {
      // During a rolling deploy another process may serve it: leave the run to it for a while,
      // and fail it only when nobody has picked it up for a day.
      if (Date.now() - run.created_at.getTime() < 86_400_000) return this.finish(run, { status: "queued", nextAt: Date.now() + 30_000 });
      return this.finish(run, { status: "failed", error: { name: "Error", message: `function ${run.function_id} is not served by any process` } });
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
      const outcome = await this.step(fn, run);
      if (outcome === "continue") {
        if (!(await this.save(run, { status: "queued", nextAt: Date.now() }, true))) return;
        continue;
      }
      await this.finish(run, outcome);
      return;
    }
    await this.save(run, { status: "queued", nextAt: Date.now() }, false);
  }

  /** One round of calls; returns "continue" when the run can be called again at once. */
  private async step(fn: FunctionDefinition, run: RunRow): Promise<"continue" | Outcome> {
    const call = (stepId: string, disableImmediateExecution: boolean) =>
      this.timed(run, stepId, () => callFunction({
        url: fn.url,
        stepId,
        run,
        maxAttempts: fn.maxAttempts,
        disableImmediateExecution,
        signingKey: this.opts.signingKey,
        timeoutMs: this.opts.stepTimeoutMs,
      }));

    const results = run.planned.length
      ? await Promise.all(run.planned.map((p) => call(p.id, true)))
      : [await call("step", run.disable_immediate_execution)];
    const plannedBefore = run.planned;
    run.planned = [];

    let blocking: Op | undefined;
    let retry: { ops: Op[]; delayMs?: number } | undefined;
    for (const [index, result] of results.entries()) {
      if (result.kind === "complete") return { status: "completed", output: result.output };
      if (result.kind === "error") {
        if (result.status === 401 && !this.warnedUnauthorized) {
          // Retried like any failure, but a key mismatch never heals by itself: say so loudly.
          this.warnedUnauthorized = true;
          this.opts.log(`${fn.url} refused the executor's signature (401): the app and the executor use different INNGEST_SIGNING_KEYs`);
        }
        if (!result.retriable || run.attempt + 1 >= fn.maxAttempts) return { status: "failed", error: result.error };
        retry = { ops: plannedBefore[index] ? [{ op: "StepPlanned", id: plannedBefore[index].id }] : [], delayMs: result.retryAfterMs };
        continue;
      }
      const planned = result.ops.filter((op) => op.op === "StepPlanned");
      if (planned.length > 0) {
        run.planned.push(...planned.map((op) => ({ id: op.id, name: op.name })));
        if (planned.length > 1) run.disable_immediate_execution = true;
      }
      for (const op of result.ops) {
        switch (op.op) {
          case "StepPlanned":
            break;
          case "StepRun":
          case "Step":
            this.memoize(run, op.id, { data: op.data ?? null });
            break;
          case "StepFailed":
            this.memoize(run, op.id, { error: op.error ?? null });
            break;
          case "StepError":
            retry = { ops: [...(retry?.ops ?? []), op], delayMs: result.retryAfterMs ?? retry?.delayMs };
            break;
          case "RunComplete":
            return { status: "completed", output: op.data ?? null };
          case "Sleep":
          case "WaitForEvent":
          case "InvokeFunction":
            blocking ??= op;
            break;
          case "StepNotFound":
            return { status: "failed", error: { name: "StepNotFound", message: `step ${op.displayName ?? op.id} was not found (renamed or removed?)` } };
          default:
            return { status: "failed", error: { name: "UnsupportedOperation", message: `the embedded executor does not implement ${op.op}` } };
        }
      }
    }

    if (retry) {
      // Keep the steps that failed (and any not yet executed) planned for the next attempt.
      for (const op of retry.ops) if (!run.planned.some((p) => p.id === op.id) && op.id) run.planned.push({ id: op.id, name: op.name });
      run.attempt += 1;
      return { status: "queued", nextAt: Date.now() + (retry.delayMs ?? this.backoff(run.attempt - 1)) };
    }
    if (blocking && run.planned.length === 0) return this.block(run, blocking);
    run.attempt = 0;
    return "continue";
  }

  /** With `debug` (SIEVE_EXECUTOR_DEBUG), every call is logged with its duration. */
  private async timed<T>(run: RunRow, stepId: string, call: () => Promise<T>): Promise<T> {
    if (!this.opts.debug) return call();
    const started = performance.now();
    const result = await call();
    const summary = JSON.stringify(result).slice(0, 160);
    this.opts.log(`run ${run.id} ${run.function_id} step=${stepId.slice(0, 8)} ${(performance.now() - started).toFixed(1)} ms ${summary}`);
    return result;
  }

  private memoize(run: RunRow, id: string, value: { data: unknown } | { error: unknown }): void {
    if (!(id in run.steps)) run.stack.push(id);
    run.steps[id] = value;
    run.attempt = 0;
  }

  private async block(run: RunRow, op: Op): Promise<Outcome> {
    run.attempt = 0;
    if (op.op === "Sleep") {
      // step.sleep(0) (or a negative duration) comes as an empty duration: wake at once.
      const wake = op.name === "" ? Date.now() : wakeTime(op.name ?? "");
      if (wake === undefined) return { status: "failed", error: { name: "Error", message: `cannot read sleep duration ${JSON.stringify(op.name)}` } };
      this.memoize(run, op.id, { data: null });
      return { status: "queued", nextAt: wake };
    }
    if (op.op === "WaitForEvent") {
      // A duration, or an ISO date when the timeout was given as a Date.
      const timeoutMs = Math.max(0, (wakeTime(String(op.opts?.timeout ?? "")) ?? Date.now()) - Date.now());
      if (op.opts?.if) {
        try {
          compileCached(op.opts.if);
        } catch (error) {
          if (!(error instanceof ExpressionError)) throw error;
          const message = `step.waitForEvent "${op.displayName ?? op.id}" uses an expression the embedded executor does not implement: ${error.message}`;
          return { status: "failed", error: { name: "UnsupportedExpression", message } };
        }
      }
      const register = async (client: pg.PoolClient) => {
        await client.query(
          `INSERT INTO executor_waits (run_id, step_id, event_name, expression, run_event) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
          [run.id, op.id, op.name, op.opts?.if ?? null, JSON.stringify(run.event)],
        );
      };
      return { status: "waiting", wait: { type: "event", stepId: op.id }, nextAt: Date.now() + timeoutMs, register };
    }
    const target = this.functions.get(String(op.opts?.function_id));
    if (!target) {
      this.memoize(run, op.id, { error: { name: "Error", message: `invoked function ${String(op.opts?.function_id)} is not served` } });
      return { status: "queued", nextAt: Date.now() };
    }
    const child: EventPayload = {
      id: `invoke-${run.id}-${op.id}`,
      name: "inngest/function.invoked",
      data: (op.opts?.payload?.data ?? {}) as Record<string, unknown>,
      ts: Date.now(),
    };
    // The child run names its parent (parent_run_id, parent_step_id); finishing it resumes the parent.
    const register = async (client: pg.PoolClient) => {
      await createRun(client, { fn: target, event: child, parent: { runId: run.id, stepId: op.id } });
    };
    const timeoutAt = op.opts?.timeout ? wakeTime(op.opts.timeout) : undefined;
    return { status: "waiting", wait: { type: "invoke", stepId: op.id }, nextAt: timeoutAt ?? Date.now() + DEFAULT_INVOKE_TIMEOUT_MS, register };
  }

  /** Persists the run state; `keepLease` keeps executing in this process. */
  private async save(run: RunRow, outcome: Outcome, keepLease: boolean, client: pg.Pool | pg.PoolClient = this.opts.pool): Promise<boolean> {
    const { rowCount } = await client.query(
      `UPDATE executor_runs SET steps = $3, stack = $4, planned = $5, attempt = $6, status = $7, next_at = $8, wait = $9,
         disable_immediate_execution = $10, lease_owner = CASE WHEN $11 THEN lease_owner END, lease_until = CASE WHEN $11 THEN lease_until END
       WHERE id = $1 AND lease_owner = $2`,
      [
        run.id,
        this.workerId,
        JSON.stringify(run.steps),
        run.stack,
        JSON.stringify(run.planned),
        run.attempt,
        outcome.status,
        new Date(outcome.nextAt ?? Date.now()),
        outcome.wait ? JSON.stringify(outcome.wait) : null,
        run.disable_immediate_execution,
        keepLease,
      ],
    );
    if (!rowCount) this.opts.log(`run ${run.id}: lease lost, leaving it to the process that holds it`);
    return Boolean(rowCount);
  }

  private async finish(run: RunRow, outcome: Outcome): Promise<void> {
    if (outcome.status !== "completed" && outcome.status !== "failed" && !outcome.register) {
      await this.save(run, outcome, false);
      return;
    }
    if (outcome.register) {
      const register = outcome.register;
      await withTransaction(this.opts.pool, async (client) => {
        await register(client);
        if (!(await this.save(run, outcome, false, client))) throw new Rollback(undefined);
      });
      return; // startExecution wakes the loop when execute() returns (a child run may be waiting)
    }
    await withTransaction(this.opts.pool, async (client) => {
      const { rowCount } = await client.query(
        `UPDATE executor_runs SET status = $3, output = $4, error = $5, steps = $6, stack = $7, planned = '[]', wait = NULL,
           finished_at = now(), lease_owner = NULL, lease_until = NULL
         WHERE id = $1 AND lease_owner = $2`,
        [
          run.id,
          this.workerId,
          outcome.status,
          outcome.status === "completed" ? JSON.stringify(outcome.output ?? null) : null,
          outcome.status === "failed" ? JSON.stringify(outcome.error ?? null) : null,
          JSON.stringify(run.steps),
          run.stack,
        ],
      );
      if (!rowCount) throw new Rollback(undefined);
      if (run.parent_run_id && run.parent_step_id) {
        const value = outcome.status === "completed" ? { data: outcome.output ?? null } : { error: outcome.error ?? null };
        await resumeWith(client, run.parent_run_id, run.parent_step_id, value);
      }
      if (outcome.status === "failed") {
        this.opts.log(`run ${run.id} of ${run.function_id} failed: ${JSON.stringify(outcome.error).slice(0, 500)}`);
        const failed: EventPayload = {
          id: `failed-${run.id}`,
          name: "inngest/function.failed",
          data: { function_id: run.function_id, run_id: run.id, error: outcome.error, event: run.event },
          ts: Date.now(),
        };
        const fresh = await insertNewEvents(client, [failed]);
        for (const event of fresh) await this.dispatch(client, event);
      }
    });
  }
}
