import crypto from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Inngest } from "inngest";
import { serve } from "inngest/node";
import type pg from "pg";
import { afterAll, beforeAll } from "vitest";
import type { Database } from "@/lib/db/database";
import { EmbeddedExecutor, type ExecutorOptions } from "./executor";
import { generateSigningKey } from "./signing";
import { defineFunctions, delay } from "./test-functions";

/**
 * Protocol contract tests: the pinned SDK's own serve() endpoint, driven by the embedded executor
 * over the wire protocol, with its state in a real PostgreSQL. Behaviour is asserted through side
 * effects recorded by the functions (module-level counters) and through executor_runs.
 *
 * The harness each executor-*.test.ts file sets up with useExecutorHarness(): its own PostgreSQL,
 * the SDK app serving the functions of test-functions.ts, and executor `e1` running them.
 */

export const newTag = (label: string) => `${label}-${crypto.randomBytes(4).toString("hex")}`;

// ---- database, SDK app and executors ----
// pool, eventApiUrl, inngest and e1 are set by the harness's beforeAll: read them inside tests.
let dataDir: string;
let database: Database | undefined;
export let pool: pg.Pool;
let executorPool: pg.Pool;
const signingKey = generateSigningKey();
export const eventKey = crypto.randomBytes(24).toString("hex");
export let eventApiUrl: string;
let serveUrl: string;
export let inngest: Inngest;
/** The executor each test file starts with (its durability tests stop it). */
export let e1: EmbeddedExecutor;
const servers: http.Server[] = [];
const executors: EmbeddedExecutor[] = [];
export const executorLog: string[] = [];

/**
 * Latency injection for the executor's database pool: `after(sql, params)` may return a delay to
 * apply after a statement completed (before the executor sees its result), to widen race windows.
 */
type SlowStatement = (sql: string, params: unknown[] | undefined) => number | undefined;
let slowStatement: SlowStatement | undefined;
export function setSlowStatement(after: SlowStatement | undefined): void {
  slowStatement = after;
}
function withLatency<T extends object>(target: T, query: (...args: unknown[]) => Promise<unknown>): T {
  return new Proxy(target, {
    get(obj, prop) {
      if (prop === "query") {
        return async (...args: unknown[]) => {
          const result = await query.apply(obj, args);
          const sql = typeof args[0] === "string" ? args[0] : "";
          const wait = slowStatement?.(sql, args[1] as unknown[] | undefined);
          if (wait) await delay(wait);
          return result;
        };
      }
      const value = Reflect.get(obj, prop, obj) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(obj) : value;
    },
  });
}
function latencyPool(base: pg.Pool): pg.Pool {
  const proxied = withLatency(base, base.query as (...args: unknown[]) => Promise<unknown>);
  return new Proxy(proxied, {
    get(obj, prop) {
      if (prop === "connect") {
        return async () => {
          const client = await base.connect();
          return withLatency(client, client.query as (...args: unknown[]) => Promise<unknown>);
        };
      }
      return Reflect.get(obj, prop, obj) as unknown;
    },
  });
}

export function newExecutor(options: Partial<ExecutorOptions> = {}): EmbeddedExecutor {
  const executor = new EmbeddedExecutor({
    pool: executorPool,
    signingKey,
    eventKey,
    serveUrl,
    retryBaseMs: 20,
    pollMs: 50,
    leaseMs: 1000,
    stepTimeoutMs: 10_000,
    log: (message) => executorLog.push(message),
    ...options,
  });
  executors.push(executor);
  return executor;
}

export async function listen(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/inngest`;
}

// ---- executor_runs ----
export interface RunRecord {
  id: string;
  function_id: string;
  status: string;
  attempt: number;
  output: unknown;
  error: { name?: string; message?: string } | null;
  steps: Record<string, unknown>;
  stack: string[];
  wait: unknown;
  next_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  created_at: Date;
  parent_run_id: string | null;
}

/** Runs of `fn` (without the app prefix) whose event (or failed run's event) carries data.tag. */
export async function runsOf(fn: string, tag: string): Promise<RunRecord[]> {
  const { rows } = await pool.query<RunRecord>(
    `SELECT * FROM executor_runs WHERE function_id = $1
       AND $2 IN (event->'data'->>'tag', event->'data'->'event'->'data'->>'tag')
     ORDER BY created_at, id`,
    [`contract-${fn}`, tag],
  );
  return rows;
}

export function describeRuns(runs: RunRecord[]): string {
  return JSON.stringify(
    runs.map((r) => ({ id: r.id, status: r.status, attempt: r.attempt, error: r.error, output: r.output, steps: Object.keys(r.steps).length, wait: r.wait, next_at: r.next_at })),
  );
}

export async function eventually<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, context?: () => Promise<string>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) {
      const extra = context ? await context() : "";
      const logTail = executorLog.slice(-8).join("\n  ");
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${extra ? `\n  state: ${extra}` : ""}\n  executor log tail:\n  ${logTail}`);
    }
    await delay(25);
  }
}

/** Waits until the single run of `fn` for `tag` is completed or failed, and returns it. */
export async function finishedRun(fn: string, tag: string, timeoutMs = 10_000): Promise<RunRecord> {
  return eventually(
    `run of ${fn} (tag ${tag}) to finish`,
    async () => {
      const runs = await runsOf(fn, tag);
      return runs.length === 1 && (runs[0]!.status === "completed" || runs[0]!.status === "failed") ? runs[0] : undefined;
    },
    timeoutMs,
    async () => describeRuns(await runsOf(fn, tag)),
  );
}

export async function send(name: string, data: Record<string, unknown>, id?: string): Promise<string[]> {
  const { ids } = await inngest.send({ name, data, ...(id ? { id } : {}) });
  return ids;
}

/** Registers the calling test file's beforeAll/afterAll for the harness. */
export function useExecutorHarness(): void {
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "sieve-executor-"));
    await chmod(dataDir, 0o755); // as root, PostgreSQL runs as `postgres` and must enter it
    process.env.DATA_DIR = dataDir;
    process.env.DATABASE_POOL_SIZE = "20";
    delete process.env.DATABASE_URL;
    const { ensureDatabase } = await import("@/lib/db/database");
    database = await ensureDatabase();
    const { sqlPool } = await import("@/lib/db/client");
    pool = sqlPool();
    executorPool = latencyPool(pool);

    // The order of lib/executor/mode.ts: the event API listens, the SDK's variables point at it,
    // then the client is built, then the executor syncs our serve() endpoint.
    e1 = newExecutor({ serveUrl: "" });
    eventApiUrl = await e1.listen();
    process.env.INNGEST_SIGNING_KEY = signingKey;
    process.env.INNGEST_EVENT_KEY = eventKey;
    process.env.INNGEST_BASE_URL = eventApiUrl;
    delete process.env.INNGEST_DEV;
    inngest = new Inngest({ id: "contract" });
    serveUrl = await listen(serve({ client: inngest, functions: defineFunctions(inngest) }));
    e1.setServeUrl(serveUrl);
    await e1.start();
  });

  afterAll(async () => {
    slowStatement = undefined;
    for (const executor of executors) await executor.stop(2_000).catch(() => undefined);
    for (const server of servers) await new Promise((resolve) => server.close(resolve));
    await database?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
}
