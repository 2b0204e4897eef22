import crypto from "node:crypto";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { Inngest, NonRetriableError } from "inngest";
import { serve } from "inngest/node";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "@/lib/db/database";
import { EmbeddedExecutor, type ExecutorOptions } from "./executor";
import { generateSigningKey } from "./signing";

/**
 * Protocol contract tests: the pinned SDK's own serve() endpoint, driven by the embedded executor
 * over the wire protocol, with its state in a real PostgreSQL. Behaviour is asserted through side
 * effects recorded by the functions (module-level counters) and through executor_runs.
 */

// ---- side effects recorded by the functions ----
const counts = new Map<string, number>();
const bump = (key: string): number => {
  const n = (counts.get(key) ?? 0) + 1;
  counts.set(key, n);
  return n;
};
const count = (key: string): number => counts.get(key) ?? 0;
const records = new Map<string, unknown[]>();
const record = (key: string, value: unknown): void => {
  records.set(key, [...(records.get(key) ?? []), value]);
};
const recorded = <T>(key: string): T[] => (records.get(key) ?? []) as T[];
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const newTag = (label: string) => `${label}-${crypto.randomBytes(4).toString("hex")}`;

interface Interval {
  tag: string;
  key?: string;
  n: number;
  start: number;
  end: number;
}
/** Runs a step body of `ms` and records when it started and ended. */
async function timed(key: string, interval: Omit<Interval, "start" | "end">, ms: number): Promise<void> {
  const start = Date.now();
  await delay(ms);
  record(key, { ...interval, start, end: Date.now() });
}
const overlaps = (a: Interval, b: Interval) => a.start < b.end && b.start < a.end;

// ---- database, SDK app and executors ----
let dataDir: string;
let database: Database | undefined;
let pool: pg.Pool;
let executorPool: pg.Pool;
const signingKey = generateSigningKey();
const eventKey = crypto.randomBytes(24).toString("hex");
let eventApiUrl: string;
let serveUrl: string;
let inngest: Inngest;
const servers: http.Server[] = [];
const executors: EmbeddedExecutor[] = [];
const executorLog: string[] = [];

/**
 * Latency injection for the executor's database pool: `after(sql, params)` may return a delay to
 * apply after a statement completed (before the executor sees its result), to widen race windows.
 */
let slowStatement: ((sql: string, params: unknown[] | undefined) => number | undefined) | undefined;
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

function newExecutor(options: Partial<ExecutorOptions> = {}): EmbeddedExecutor {
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

async function listen(handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/inngest`;
}

// ---- executor_runs ----
interface RunRecord {
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
async function runsOf(fn: string, tag: string): Promise<RunRecord[]> {
  const { rows } = await pool.query<RunRecord>(
    `SELECT * FROM executor_runs WHERE function_id = $1
       AND $2 IN (event->'data'->>'tag', event->'data'->'event'->'data'->>'tag')
     ORDER BY created_at, id`,
    [`contract-${fn}`, tag],
  );
  return rows;
}

function describeRuns(runs: RunRecord[]): string {
  return JSON.stringify(
    runs.map((r) => ({ id: r.id, status: r.status, attempt: r.attempt, error: r.error, output: r.output, steps: Object.keys(r.steps).length, wait: r.wait, next_at: r.next_at })),
  );
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, context?: () => Promise<string>): Promise<T> {
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
async function finishedRun(fn: string, tag: string, timeoutMs = 10_000): Promise<RunRecord> {
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

async function send(name: string, data: Record<string, unknown>, id?: string): Promise<string[]> {
  const { ids } = await inngest.send({ name, data, ...(id ? { id } : {}) });
  return ids;
}

// ---- the functions under test ----
let invokeChild: ReturnType<typeof defineChild>;
function defineChild(client: Inngest) {
  return client.createFunction({ id: "invoke-child", retries: 0, triggers: [{ event: "test/never" }] }, async ({ event, step }) => {
    const data = event.data as { tag: string; x: number; fail?: boolean };
    const doubled = await step.run("double", () => {
      bump(`invoke-child:${data.tag}`);
      return data.x * 2;
    });
    if (data.fail) throw new NonRetriableError(`child refuses ${data.x}`);
    return { doubled };
  });
}

function defineFunctions(client: Inngest) {
  invokeChild = defineChild(client);
  return [
    client.createFunction({ id: "memo", triggers: [{ event: "test/memo" }] }, async ({ event, step }) => {
      const tag = event.data.tag as string;
      bump(`memo-handler:${tag}`);
      const a = await step.run("a", () => {
        bump(`memo-a:${tag}`);
        return 1;
      });
      const b = await step.run("b", () => {
        bump(`memo-b:${tag}`);
        return a + 1;
      });
      const c = await step.run("c", () => {
        bump(`memo-c:${tag}`);
        return { sum: a + b, tag };
      });
      return { c, total: a + b + c.sum };
    }),

    client.createFunction({ id: "flaky", retries: 3, triggers: [{ event: "test/flaky" }] }, async ({ event, step, attempt }) => {
      const tag = event.data.tag as string;
      const value = await step.run("flaky-step", () => {
        const n = bump(`flaky:${tag}`);
        record(`flaky-attempts:${tag}`, attempt);
        if (n < 3) throw new Error(`flaky failure ${n}`);
        return `ok after ${n}`;
      });
      return value;
    }),

    client.createFunction(
      {
        id: "always-fails",
        retries: 2,
        triggers: [{ event: "test/always-fails" }],
        onFailure: async ({ event, error }) => {
          const tag = (event.data.event.data as { tag: string }).tag;
          bump(`always-fails-onfailure:${tag}`);
          record(`always-fails-onfailure:${tag}`, { name: error.name, message: error.message });
        },
      },
      async ({ event, step, attempt }) => {
        const tag = event.data.tag as string;
        await step.run("doomed", () => {
          bump(`always-fails:${tag}`);
          record(`always-fails-attempts:${tag}`, attempt);
          throw new Error(`doomed ${tag}`);
        });
      },
    ),

    client.createFunction(
      {
        id: "non-retriable",
        retries: 4,
        triggers: [{ event: "test/non-retriable" }],
        onFailure: async ({ event, error }) => {
          const tag = (event.data.event.data as { tag: string }).tag;
          bump(`non-retriable-onfailure:${tag}`);
          record(`non-retriable-onfailure:${tag}`, error.message);
        },
      },
      async ({ event, step }) => {
        const tag = event.data.tag as string;
        if (event.data.outside) {
          bump(`non-retriable:${tag}`);
          throw new NonRetriableError(`no point retrying ${tag}`);
        }
        await step.run("refuse", () => {
          bump(`non-retriable:${tag}`);
          throw new NonRetriableError(`no point retrying ${tag}`);
        });
      },
    ),

    client.createFunction({ id: "sleeper", triggers: [{ event: "test/sleep" }] }, async ({ event, step }) => {
      const tag = event.data.tag as string;
      const before = await step.run("before", () => {
        bump(`sleeper-before:${tag}`);
        return Date.now();
      });
      await step.sleep("nap", "1s");
      const after = await step.run("after", () => {
        bump(`sleeper-after:${tag}`);
        return Date.now();
      });
      return { before, after };
    }),

    client.createFunction({ id: "sleep-until", triggers: [{ event: "test/sleep-until" }] }, async ({ event, step }) => {
      const tag = event.data.tag as string;
      const target = await step.run("target", () => Date.now() + 1_200);
      await step.sleepUntil("until", new Date(target));
      const after = await step.run("after", () => {
        bump(`sleep-until-after:${tag}`);
        return Date.now();
      });
      return { target, after };
    }),

    client.createFunction({ id: "sender", triggers: [{ event: "test/send" }] }, async ({ event, step }) => {
      const tag = event.data.tag as string;
      const { ids } = await step.sendEvent("fan-out", { name: "test/sent", data: { tag, from: "sender" } });
      return { ids };
    }),

    client.createFunction({ id: "receiver", triggers: [{ event: "test/sent" }] }, async ({ event, step }) => {
      await step.run("receive", () => {
        bump(`receiver:${event.data.tag as string}`);
        record(`receiver:${event.data.tag as string}`, event.data);
      });
      return "received";
    }),

    client.createFunction({ id: "dedupe", triggers: [{ event: "test/dedupe" }] }, async ({ event, step }) => {
      await step.run("count", () => bump(`dedupe:${event.data.tag as string}`));
    }),

    client.createFunction({ id: "waiter", triggers: [{ event: "test/wait.start" }] }, async ({ event, step }) => {
      const tag = event.data.tag as string;
      const approval = await step.waitForEvent("approval", {
        event: "test/wait.approve",
        timeout: (event.data.timeout as string | undefined) ?? "10s",
        if: "async.data.id == event.data.id",
      });
      await step.run("after-wait", () => bump(`waiter-after:${tag}`));
      return { approval };
    }),

    client.createFunction({ id: "waiter-until", triggers: [{ event: "test/wait-until.start" }] }, async ({ event, step }) => {
      const approval = await step.waitForEvent("approval", {
        event: "test/wait.approve",
        timeout: new Date(event.data.until as number), // the SDK sends an ISO date
        if: "async.data.id == event.data.id",
      });
      return { approval };
    }),

    client.createFunction({ id: "waiter-unsupported", retries: 1, triggers: [{ event: "test/wait-unsupported.start" }] }, async ({ event, step }) => {
      bump(`waiter-unsupported:${event.data.tag as string}`);
      const approval = await step.waitForEvent("approval", { event: "test/wait.approve", timeout: "5s", if: "size(async.data.items) > 0" });
      return { approval };
    }),

    client.createFunction({ id: "sleep-zero", triggers: [{ event: "test/sleep-zero" }] }, async ({ event, step }) => {
      await step.sleep("zero", Number(event.data.ms ?? 0)); // the SDK sends an empty duration for 0
      return "woke";
    }),

    client.createFunction({ id: "parallel-sleeps", triggers: [{ event: "test/parallel-sleeps" }] }, async ({ step }) => {
      const started = await step.run("started", () => Date.now());
      await Promise.all([step.sleep("a", "1s"), step.sleep("b", "1s")]);
      const ended = await step.run("ended", () => Date.now());
      return { elapsed: ended - started };
    }),

    invokeChild,
    client.createFunction({ id: "invoke-parent", triggers: [{ event: "test/invoke" }] }, async ({ event, step }) => {
      const { tag, x, fail } = event.data as { tag: string; x: number; fail?: boolean };
      try {
        const result = await step.invoke("call-child", { function: invokeChild, data: { tag, x, fail } });
        return { result };
      } catch (error) {
        return { caught: { name: (error as Error).name, message: (error as Error).message } };
      }
    }),

    client.createFunction({ id: "parallel", triggers: [{ event: "test/parallel" }] }, async ({ event, step }) => {
      const tag = event.data.tag as string;
      const results = await Promise.all(
        [1, 2, 3].map((n) =>
          step.run(`p${n}`, async () => {
            bump(`parallel-${n}:${tag}`);
            await delay(20);
            return n * 10;
          }),
        ),
      );
      const after = await step.run("after", () => {
        bump(`parallel-after:${tag}`);
        return results.reduce((a, b) => a + b, 0);
      });
      return { results, after };
    }),

    client.createFunction({ id: "serial", concurrency: { limit: 1 }, triggers: [{ event: "test/serial" }] }, async ({ event, step }) => {
      const { tag, n } = event.data as { tag: string; n: number };
      await step.run("one", () => timed(`serial:${tag}`, { tag, n }, 80));
      await step.run("two", () => timed(`serial:${tag}`, { tag, n }, 80));
    }),

    client.createFunction(
      { id: "keyed", concurrency: { limit: 1, key: "event.data.key" }, triggers: [{ event: "test/keyed" }] },
      async ({ event, step }) => {
        const { tag, n, key } = event.data as { tag: string; n: number; key: string };
        await step.run("work", () => timed(`keyed:${tag}`, { tag, n, key }, 250));
      },
    ),

    client.createFunction({ id: "throttled", throttle: { limit: 1, period: "1s" }, triggers: [{ event: "test/throttled" }] }, async ({ event, step }) => {
      const { tag, n } = event.data as { tag: string; n: number };
      await step.run("start", () => record(`throttled:${tag}`, { n, at: Date.now() }));
    }),

    client.createFunction({ id: "filtered", triggers: [{ event: "test/filtered", if: "event.data.amount > 10 && event.data.currency == 'EUR'" }] }, async ({ event, step }) => {
      await step.run("count", () => bump(`filtered:${event.data.tag as string}:${event.data.amount as number}`));
    }),

    client.createFunction({ id: "idempotent", idempotency: "event.data.orderId", triggers: [{ event: "test/idempotent" }] }, async ({ event, step }) => {
      await step.run("count", () => bump(`idempotent:${event.data.tag as string}:${event.data.orderId as string}`));
    }),

    client.createFunction({ id: "durable-sleep", triggers: [{ event: "test/durable-sleep" }] }, async ({ event, step }) => {
      const tag = event.data.tag as string;
      await step.run("a", () => bump(`durable-sleep-a:${tag}`));
      await step.sleep("nap", "1s");
      await step.run("b", () => bump(`durable-sleep-b:${tag}`));
      return "done";
    }),

    client.createFunction({ id: "durable-steps", triggers: [{ event: "test/durable-steps" }] }, async ({ event, step }) => {
      const { tag, slowMs } = event.data as { tag: string; slowMs: number };
      const one = await step.run("one", () => bump(`durable-steps-one:${tag}`));
      const two = await step.run("two", async () => {
        bump(`durable-steps-two:${tag}`);
        await delay(slowMs);
        bump(`durable-steps-two-end:${tag}`);
        return 2;
      });
      const three = await step.run("three", () => bump(`durable-steps-three:${tag}`));
      return { one, two, three };
    }),

    client.createFunction({ id: "shared", triggers: [{ event: "test/shared" }] }, async ({ event, step }) => {
      const { tag, n } = event.data as { tag: string; n: number };
      const steps = [];
      for (const name of ["s1", "s2", "s3"]) {
        steps.push(
          await step.run(name, async () => {
            bump(`shared:${tag}:${n}:${name}`);
            await delay(5 + Math.floor(Math.random() * 20));
            return name;
          }),
        );
      }
      return { n, steps };
    }),
  ];
}

let e1: EmbeddedExecutor;

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

describe("embedded executor against the SDK's serve()", () => {
  it("syncs every function of the app", () => {
    expect(e1.functionIds()).toEqual(
      expect.arrayContaining(["contract-memo", "contract-always-fails-failure", "contract-invoke-child", "contract-shared"]),
    );
  });

  it("memoizes steps: each step body runs once and the return value is the run output", async () => {
    const tag = newTag("memo");
    const [eventId] = await send("test/memo", { tag });
    expect(eventId).toBeTruthy();
    const run = await finishedRun("memo", tag);
    expect(run.status, describeRuns([run])).toBe("completed");
    expect(run.output).toEqual({ c: { sum: 3, tag }, total: 6 });
    expect([count(`memo-a:${tag}`), count(`memo-b:${tag}`), count(`memo-c:${tag}`)]).toEqual([1, 1, 1]);
    expect(count(`memo-handler:${tag}`)).toBeGreaterThanOrEqual(4); // the handler replays around the memo
    expect(Object.keys(run.steps)).toHaveLength(3);
    expect(run.stack).toHaveLength(3);
    const { rows } = await pool.query(`SELECT payload FROM executor_events WHERE id = $1`, [eventId]);
    expect(rows[0]?.payload).toMatchObject({ name: "test/memo", data: { tag } });
  });

  it("retries a failing step: thrown twice, then succeeds on the third attempt", async () => {
    const tag = newTag("flaky");
    await send("test/flaky", { tag });
    const run = await finishedRun("flaky", tag);
    expect(run.status, describeRuns([run])).toBe("completed");
    expect(run.output).toBe("ok after 3");
    expect(count(`flaky:${tag}`)).toBe(3);
    expect(recorded<number>(`flaky-attempts:${tag}`)).toEqual([0, 1, 2]);
  });

  it("fails a run after retries + 1 attempts and runs onFailure once with the error", async () => {
    const tag = newTag("always");
    await send("test/always-fails", { tag });
    const run = await finishedRun("always-fails", tag);
    expect(run.status, describeRuns([run])).toBe("failed");
    expect(count(`always-fails:${tag}`)).toBe(3); // retries: 2
    expect(recorded<number>(`always-fails-attempts:${tag}`)).toEqual([0, 1, 2]);
    expect(run.error?.message).toContain(`doomed ${tag}`);
    const failure = await finishedRun("always-fails-failure", tag);
    expect(failure.status, describeRuns([failure])).toBe("completed");
    expect(count(`always-fails-onfailure:${tag}`)).toBe(1);
    expect(recorded<{ message: string }>(`always-fails-onfailure:${tag}`)[0]?.message).toContain(`doomed ${tag}`);
  });

  it("fails at once on NonRetriableError thrown in a step, and runs onFailure", async () => {
    const tag = newTag("nonretriable");
    await send("test/non-retriable", { tag });
    const run = await finishedRun("non-retriable", tag);
    expect(run.status, describeRuns([run])).toBe("failed");
    expect(count(`non-retriable:${tag}`)).toBe(1);
    await finishedRun("non-retriable-failure", tag);
    expect(count(`non-retriable-onfailure:${tag}`)).toBe(1);
    expect(recorded<string>(`non-retriable-onfailure:${tag}`)[0]).toContain(`no point retrying ${tag}`);
  });

  it("fails at once on NonRetriableError thrown outside a step", async () => {
    const tag = newTag("nonretriable-outside");
    await send("test/non-retriable", { tag, outside: true });
    const run = await finishedRun("non-retriable", tag);
    expect(run.status, describeRuns([run])).toBe("failed");
    expect(run.error?.name).toBe("NonRetriableError");
    expect(count(`non-retriable:${tag}`)).toBe(1);
    await finishedRun("non-retriable-failure", tag);
    expect(count(`non-retriable-onfailure:${tag}`)).toBe(1);
  });

  it("step.sleep('1s'): the next step runs at least 1 s later", async () => {
    const tag = newTag("sleep");
    await send("test/sleep", { tag });
    const run = await finishedRun("sleeper", tag);
    expect(run.status, describeRuns([run])).toBe("completed");
    const { before, after } = run.output as { before: number; after: number };
    expect(after - before).toBeGreaterThanOrEqual(1000);
    expect(after - before).toBeLessThan(5000);
    expect([count(`sleeper-before:${tag}`), count(`sleeper-after:${tag}`)]).toEqual([1, 1]);
  });

  it("step.sleepUntil: the next step runs at or after the date", async () => {
    const tag = newTag("sleep-until");
    await send("test/sleep-until", { tag });
    const run = await finishedRun("sleep-until", tag);
    expect(run.status, describeRuns([run])).toBe("completed");
    const { target, after } = run.output as { target: number; after: number };
    expect(after).toBeGreaterThanOrEqual(target);
    expect(count(`sleep-until-after:${tag}`)).toBe(1);
  });

  it("step.sendEvent triggers another function once", async () => {
    const tag = newTag("send");
    await send("test/send", { tag });
    const run = await finishedRun("sender", tag);
    expect(run.status, describeRuns([run])).toBe("completed");
    const { ids } = run.output as { ids: string[] };
    expect(ids).toHaveLength(1);
    const received = await finishedRun("receiver", tag);
    expect(received.status).toBe("completed");
    expect(count(`receiver:${tag}`)).toBe(1);
    expect(recorded(`receiver:${tag}`)[0]).toEqual({ tag, from: "sender" });
    const { rows } = await pool.query(`SELECT name FROM executor_events WHERE id = $1`, [ids[0]]);
    expect(rows).toEqual([{ name: "test/sent" }]);
  });

  it("deduplicates events by id: the same id sent twice starts one run", async () => {
    const tag = newTag("dedupe");
    const id = `dedupe-${tag}`;
    expect(await send("test/dedupe", { tag }, id)).toEqual([id]);
    expect(await send("test/dedupe", { tag }, id)).toEqual([id]);
    await finishedRun("dedupe", tag);
    await delay(200);
    expect(await runsOf("dedupe", tag)).toHaveLength(1);
    expect(count(`dedupe:${tag}`)).toBe(1);
  });

  it("deduplicates an id repeated within one send", async () => {
    const tag = newTag("dedupe-batch");
    const id = `dedupe-${tag}`;
    await inngest.send([
      { id, name: "test/dedupe", data: { tag } },
      { id, name: "test/dedupe", data: { tag } },
    ]);
    await eventually("a run", async () => (await runsOf("dedupe", tag)).length > 0);
    await delay(300);
    const runs = await runsOf("dedupe", tag);
    expect(runs, describeRuns(runs)).toHaveLength(1);
  });

  describe("step.waitForEvent", () => {
    const waitRows = async (runId: string) => (await pool.query(`SELECT * FROM executor_waits WHERE run_id = $1`, [runId])).rows;

    it("resumes with the matching event only", async () => {
      const tag = newTag("wait");
      const id = `order-${tag}`;
      await send("test/wait.start", { tag, id });
      const waiting = await eventually("the run to wait", async () => (await runsOf("waiter", tag)).find((r) => r.status === "waiting"));
      expect(await waitRows(waiting.id)).toHaveLength(1);
      await send("test/wait.approve", { id: "someone-else" });
      await send("test/wait.other", { id });
      await delay(300);
      const still = await runsOf("waiter", tag);
      expect(still[0]!.status, describeRuns(still)).toBe("waiting");
      expect(count(`waiter-after:${tag}`)).toBe(0);
      const [approvalId] = await send("test/wait.approve", { id, by: "boss" });
      const run = await finishedRun("waiter", tag);
      expect(run.status, describeRuns([run])).toBe("completed");
      expect(run.output).toMatchObject({ approval: { id: approvalId, name: "test/wait.approve", data: { id, by: "boss" } } });
      expect(count(`waiter-after:${tag}`)).toBe(1);
      expect(await waitRows(run.id)).toHaveLength(0);
    });

    it("resolves with null on timeout", async () => {
      const tag = newTag("wait-timeout");
      const started = Date.now();
      await send("test/wait.start", { tag, id: `order-${tag}`, timeout: "1s" });
      const run = await finishedRun("waiter", tag);
      expect(run.status, describeRuns([run])).toBe("completed");
      expect(run.output).toEqual({ approval: null });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
      expect(await waitRows(run.id)).toHaveLength(0);
    });

    it("resumes with an event sent as soon as the wait is visible (no lost wakeup)", async () => {
      const tag = newTag("wait-race");
      const id = `order-${tag}`;
      // A slow database right after the wait row is written: the event must not find a wait whose
      // run cannot be resumed yet (it would be consumed, and the run would time out with null).
      slowStatement = (sql) => (sql.startsWith("INSERT INTO executor_waits") ? 500 : undefined);
      try {
        await send("test/wait.start", { tag, id, timeout: "4s" });
        await eventually("the wait to be visible to other connections", async () => {
          const { rows } = await pool.query(`SELECT 1 FROM executor_waits WHERE event_name = 'test/wait.approve' AND run_event->'data'->>'tag' = $1`, [tag]);
          return rows.length > 0;
        });
        await send("test/wait.approve", { id });
      } finally {
        slowStatement = undefined;
      }
      const run = await finishedRun("waiter", tag);
      expect(run.status, describeRuns([run])).toBe("completed");
      expect(run.output, "the matching event was consumed but the run timed out").toMatchObject({ approval: { data: { id } } });
    });
  });

  describe("SDK edge cases", () => {
    it("waitForEvent with a Date timeout waits until that date", async () => {
      const tag = newTag("wait-until");
      const id = `order-${tag}`;
      await send("test/wait-until.start", { tag, id, until: Date.now() + 3_000 });
      await eventually("the wait to be visible", async () => {
        const { rows } = await pool.query(`SELECT 1 FROM executor_waits WHERE run_event->'data'->>'tag' = $1`, [tag]);
        return rows.length > 0 || (await runsOf("waiter-until", tag))[0]?.status === "completed";
      });
      await send("test/wait.approve", { id });
      const run = await finishedRun("waiter-until", tag);
      expect(run.output).toMatchObject({ approval: { data: { id } } });
    });

    it("waitForEvent with an unsupported if expression fails the run with a clear error", async () => {
      const tag = newTag("wait-unsupported");
      await send("test/wait-unsupported.start", { tag });
      const run = await finishedRun("waiter-unsupported", tag, 5_000);
      expect(run.status, describeRuns([run])).toBe("failed");
      expect(run.error).toMatchObject({ name: "UnsupportedExpression", message: expect.stringMatching(/"approval".*unsupported identifier size/) });
      expect(count(`waiter-unsupported:${tag}`)).toBe(1); // refused at once, not retried
    });

    it("step.sleep(0) continues (the SDK sends an empty duration)", async () => {
      const tag = newTag("sleep-zero");
      await send("test/sleep-zero", { tag });
      const run = await finishedRun("sleep-zero", tag);
      expect(run.status, describeRuns([run])).toBe("completed");
    });

    it("parallel sleeps (Promise.all of two 1 s sleeps) both end before the run continues", async () => {
      const tag = newTag("parallel-sleeps");
      await send("test/parallel-sleeps", { tag });
      const run = await finishedRun("parallel-sleeps", tag);
      expect(run.status, describeRuns([run])).toBe("completed");
      // The executor handles one blocking op per round, so these sleeps run one after the other
      // (about 2 s; Inngest would take about 1 s): slower, not wrong.
      expect((run.output as { elapsed: number }).elapsed).toBeGreaterThanOrEqual(1_000);
    });
  });

  describe("step.invoke", () => {
    it("returns the invoked function's return value", async () => {
      const tag = newTag("invoke");
      await send("test/invoke", { tag, x: 21 });
      const run = await finishedRun("invoke-parent", tag);
      expect(run.status, describeRuns([run])).toBe("completed");
      expect(run.output).toEqual({ result: { doubled: 42 } });
      const child = await finishedRun("invoke-child", tag);
      expect(child.parent_run_id).toBe(run.id);
      expect(count(`invoke-child:${tag}`)).toBe(1);
    });

    it("throws in the invoking step when the invoked function fails", async () => {
      const tag = newTag("invoke-fail");
      await send("test/invoke", { tag, x: 5, fail: true });
      const run = await finishedRun("invoke-parent", tag);
      expect(run.status, describeRuns([run])).toBe("completed");
      expect(run.output).toMatchObject({ caught: { message: expect.stringContaining("child refuses 5") } });
      const child = await finishedRun("invoke-child", tag);
      expect(child.status).toBe("failed");
    });

    it("resumes the parent even when the child finishes before the parent is marked waiting", async () => {
      const tag = newTag("invoke-race");
      // A slow database right after the child run is created: the child runs and finishes first.
      slowStatement = (sql, params) => (sql.startsWith("INSERT INTO executor_runs") && params?.[6] ? 700 : undefined);
      try {
        await send("test/invoke", { tag, x: 4 });
        const child = await finishedRun("invoke-child", tag);
        expect(child.status).toBe("completed");
      } finally {
        slowStatement = undefined;
      }
      const run = await finishedRun("invoke-parent", tag, 5_000);
      expect(run.output).toEqual({ result: { doubled: 8 } });
    });
  });

  it("runs parallel steps (Promise.all of 3 step.run): all results, each once", async () => {
    const tag = newTag("parallel");
    await send("test/parallel", { tag });
    const run = await finishedRun("parallel", tag);
    expect(run.status, describeRuns([run])).toBe("completed");
    expect(run.output).toEqual({ results: [10, 20, 30], after: 60 });
    expect([1, 2, 3, "after"].map((n) => count(`parallel-${n}:${tag}`))).toEqual([1, 1, 1, 1]);
  });

  it("concurrency { limit: 1 }: step executions never overlap", async () => {
    const tag = newTag("serial");
    await Promise.all([1, 2, 3, 4].map((n) => send("test/serial", { tag, n })));
    await eventually("4 serial runs to complete", async () => {
      const runs = await runsOf("serial", tag);
      return runs.length === 4 && runs.every((r) => r.status === "completed");
    });
    const intervals = recorded<Interval>(`serial:${tag}`);
    expect(intervals).toHaveLength(8);
    for (const a of intervals) {
      for (const b of intervals) {
        if (a !== b) expect(overlaps(a, b), `overlap: ${JSON.stringify([a, b])}`).toBe(false);
      }
    }
  });

  it("concurrency with a key: the same key never overlaps, different keys may", async () => {
    const tag = newTag("keyed");
    const sends = [
      { n: 1, key: "A" },
      { n: 2, key: "A" },
      { n: 3, key: "B" },
      { n: 4, key: "B" },
    ].map((d) => send("test/keyed", { tag, ...d }));
    await Promise.all(sends);
    await eventually("4 keyed runs to complete", async () => {
      const runs = await runsOf("keyed", tag);
      return runs.length === 4 && runs.every((r) => r.status === "completed");
    });
    const intervals = recorded<Interval>(`keyed:${tag}`);
    expect(intervals).toHaveLength(4);
    let crossKeyOverlap = false;
    for (const a of intervals) {
      for (const b of intervals) {
        if (a === b) continue;
        if (a.key === b.key) expect(overlaps(a, b), `same-key overlap: ${JSON.stringify([a, b])}`).toBe(false);
        else if (overlaps(a, b)) crossKeyOverlap = true;
      }
    }
    expect(crossKeyOverlap, `no two keys ever ran together: ${JSON.stringify(intervals)}`).toBe(true);
  });

  it("throttle { limit: 1, period: '1s' }: run starts are spaced by about 1 s", async () => {
    const tag = newTag("throttle");
    await Promise.all([1, 2, 3].map((n) => send("test/throttled", { tag, n })));
    await eventually(
      "3 throttled runs to complete",
      async () => {
        const runs = await runsOf("throttled", tag);
        return runs.length === 3 && runs.every((r) => r.status === "completed");
      },
      10_000,
    );
    const starts = recorded<{ at: number }>(`throttled:${tag}`)
      .map((r) => r.at)
      .sort((a, b) => a - b);
    expect(starts).toHaveLength(3);
    const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
    // Seen from inside the function, with the latency between claim and call as jitter.
    for (const gap of gaps) expect(gap, `gaps between first steps: ${gaps.join(", ")} ms`).toBeGreaterThanOrEqual(800);
    // The run starts the throttle admits (executor_runs.started_at): at least the period apart.
    const runStarts = (await runsOf("throttled", tag)).map((r) => r.started_at!.getTime()).sort((a, b) => a - b);
    const runGaps = runStarts.slice(1).map((at, i) => at - runStarts[i]!);
    for (const gap of runGaps) expect(gap, `started_at gaps: ${runGaps.join(", ")} ms`).toBeGreaterThanOrEqual(990);
  });

  it("trigger if expressions filter which events start runs", async () => {
    const tag = newTag("filtered");
    await send("test/filtered", { tag, amount: 5, currency: "EUR" });
    await send("test/filtered", { tag, amount: 50, currency: "USD" });
    await send("test/filtered", { tag, amount: 20, currency: "EUR" });
    await finishedRun("filtered", tag);
    await delay(200);
    expect(await runsOf("filtered", tag)).toHaveLength(1);
    expect([count(`filtered:${tag}:5`), count(`filtered:${tag}:50`), count(`filtered:${tag}:20`)]).toEqual([0, 0, 1]);
  });

  it("idempotency: a second event with the same key creates no run", async () => {
    const tag = newTag("idem");
    await send("test/idempotent", { tag, orderId: `${tag}-1` });
    await send("test/idempotent", { tag, orderId: `${tag}-1` }); // different event id, same key
    await send("test/idempotent", { tag, orderId: `${tag}-2` });
    await eventually("2 idempotent runs to complete", async () => {
      const runs = await runsOf("idempotent", tag);
      return runs.length === 2 && runs.every((r) => r.status === "completed");
    });
    await delay(200);
    expect(await runsOf("idempotent", tag)).toHaveLength(2);
    expect([count(`idempotent:${tag}:${tag}-1`), count(`idempotent:${tag}:${tag}-2`)]).toEqual([1, 1]);
  });

  it("refuses unsupported options at start(), naming the function and the option", async () => {
    const client = new Inngest({ id: "contract-bad" });
    const badUrl = await listen(
      serve({
        client,
        functions: [
          client.createFunction({ id: "fine", triggers: [{ event: "test/fine" }] }, async () => "ok"),
          client.createFunction({ id: "debounced", debounce: { period: "5s" }, triggers: [{ event: "test/debounced" }] }, async () => "ok"),
        ],
      }),
    );
    const bad = newExecutor({ serveUrl: badUrl });
    await expect(bad.start()).rejects.toThrow(/Inngest function "contract-bad-debounced" uses debounce, which the embedded executor does not implement/);
    expect(bad.functionIds()).toEqual([]);
  });

  describe("signature checks stay on", () => {
    it("an executor with a different signing key cannot even sync (401)", async () => {
      const wrong = newExecutor({ signingKey: generateSigningKey() });
      await expect(wrong.start()).rejects.toThrow(/in-band sync of .* failed with status 401/);
    });

    it("the event API refuses a wrong event key with 401", async () => {
      const response = await fetch(new URL(`e/${"0".repeat(eventKey.length)}`, eventApiUrl), {
        method: "POST",
        body: JSON.stringify([{ name: "test/memo", data: { tag: "never" } }]),
      });
      expect(response.status).toBe(401);
      const shorter = await fetch(new URL("e/short", eventApiUrl), { method: "POST", body: "[]" });
      expect(shorter.status).toBe(401);
      const wrongClient = new Inngest({ id: "contract", eventKey: "wrong-key" });
      await expect(wrongClient.send({ name: "test/memo", data: { tag: "never" } })).rejects.toThrow();
      const { rows } = await pool.query(`SELECT count(*)::int AS n FROM executor_events WHERE payload->'data'->>'tag' = 'never'`);
      expect(rows[0].n).toBe(0);
    });
  });
});

describe("durability", () => {
  it("a run sleeping when its executor stops is completed by a new executor; each step ran once", async () => {
    const tag = newTag("durable-sleep");
    await send("test/durable-sleep", { tag });
    const sleeping = await eventually("the run to sleep", async () => {
      const runs = await runsOf("durable-sleep", tag);
      return runs[0] && runs[0].status === "queued" && runs[0].next_at.getTime() > Date.now() && count(`durable-sleep-a:${tag}`) === 1 ? runs[0] : undefined;
    });
    await e1.stop();
    expect((await runsOf("durable-sleep", tag))[0]!.status).toBe("queued");

    const e2 = newExecutor();
    await e2.start();
    const run = await finishedRun("durable-sleep", tag);
    expect(run.id).toBe(sleeping.id);
    expect(run.status, describeRuns([run])).toBe("completed");
    expect([count(`durable-sleep-a:${tag}`), count(`durable-sleep-b:${tag}`)]).toEqual([1, 1]);
    await e2.stop();
  });

  it("stopping an executor in the middle of a step lets the step finish; a new executor completes the run", async () => {
    const tag = newTag("durable-steps");
    const e3 = newExecutor();
    await e3.start();
    await e3.sendEvents([{ id: crypto.randomUUID(), name: "test/durable-steps", data: { tag, slowMs: 400 }, ts: Date.now() }]);
    await eventually("step two to start", async () => count(`durable-steps-two:${tag}`) === 1);
    await e3.stop();
    expect(count(`durable-steps-two-end:${tag}`)).toBe(1);
    const e4 = newExecutor();
    await e4.start();
    const run = await finishedRun("durable-steps", tag);
    expect(run.status, describeRuns([run])).toBe("completed");
    expect(run.output).toEqual({ one: 1, two: 2, three: 1 });
    expect(["one", "two", "three"].map((s) => count(`durable-steps-${s}:${tag}`))).toEqual([1, 1, 1]);
    await e4.stop();
  });

  it("a process that lost its lease cannot overwrite the run (fencing)", async () => {
    const tag = newTag("fencing");
    const e5 = newExecutor();
    await e5.start();
    // Step two outlives the lease (1 s); the executor is abandoned mid-step, like a paused process.
    await e5.sendEvents([{ id: crypto.randomUUID(), name: "test/durable-steps", data: { tag, slowMs: 2_000 }, ts: Date.now() }]);
    await eventually("step two to start", async () => count(`durable-steps-two:${tag}`) === 1);
    await e5.stop(0);
    const e6 = newExecutor();
    await e6.start();
    const run = await finishedRun("durable-steps", tag, 15_000);
    expect(run.status, describeRuns([run])).toBe("completed");
    // The abandoned call finishes later and must not overwrite what the new owner saved.
    await eventually("the abandoned step to end", async () => count(`durable-steps-two-end:${tag}`) === 2, 5_000);
    await delay(200);
    const [after] = await runsOf("durable-steps", tag);
    expect(after!.status).toBe("completed");
    expect(after!.output).toEqual(run.output);
    // At-least-once for the step in flight when its lease was lost, exactly once for the others.
    expect(["one", "two", "three"].map((s) => count(`durable-steps-${s}:${tag}`))).toEqual([1, 2, 1]);
    expect(executorLog.some((line) => line.includes("lease lost"))).toBe(true);
    await e6.stop();
  });

  it("two executors on one database: 20 runs complete, every step ran exactly once", async () => {
    const tag = newTag("shared");
    const calls = { a: new Set<string>(), b: new Set<string>() };
    const collect = (into: Set<string>) => (line: string) => {
      const runId = /^run (\S+) contract-shared /.exec(line)?.[1];
      if (runId) into.add(runId);
      else executorLog.push(line);
    };
    // debug: per-call log lines name the run, so they tell which executor ran it.
    const a = newExecutor({ maxConcurrentRuns: 4, debug: true, log: collect(calls.a) });
    const b = newExecutor({ maxConcurrentRuns: 4, debug: true, log: collect(calls.b) });
    await Promise.all([a.start(), b.start()]);
    const events = Array.from({ length: 20 }, (_, n) => ({ id: crypto.randomUUID(), name: "test/shared", data: { tag, n }, ts: Date.now() }));
    await Promise.all([a.sendEvents(events.slice(0, 10)), b.sendEvents(events.slice(10))]);
    const runs = await eventually(
      "20 shared runs to complete",
      async () => {
        const all = await runsOf("shared", tag);
        return all.length === 20 && all.every((r) => r.status === "completed") ? all : undefined;
      },
      20_000,
      async () => describeRuns(await runsOf("shared", tag)),
    );
    for (let n = 0; n < 20; n++) {
      expect(["s1", "s2", "s3"].map((s) => count(`shared:${tag}:${n}:${s}`)), `run ${n}`).toEqual([1, 1, 1]);
    }
    expect(runs.map((r) => (r.output as { n: number }).n).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect(calls.a.size, "executor A ran none of the runs").toBeGreaterThan(0);
    expect(calls.b.size, "executor B ran none of the runs").toBeGreaterThan(0);
    await Promise.all([a.stop(), b.stop()]);
  });

  it("an executor whose signing key the SDK does not accept gets 401s: the run never completes", async () => {
    // The SDK side rotates its key after the executor synced (or the executor is misconfigured).
    const sigTag = newTag("sig");
    const hits: string[] = [];
    const define = (client: Inngest) =>
      client.createFunction({ id: "target", retries: 1, triggers: [{ event: "test/sig" }] }, async ({ event, step }) => {
        await step.run("body", () => hits.push(event.data.tag as string));
        return "should not happen";
      });
    const accepting = new Inngest({ id: "contract-sig" });
    const rejecting = new Inngest({ id: "contract-sig", signingKey: generateSigningKey() });
    const handlers = {
      accepting: serve({ client: accepting, functions: [define(accepting)] }),
      rejecting: serve({ client: rejecting, functions: [define(rejecting)] }),
    };
    let current = handlers.accepting;
    const statuses: number[] = [];
    const sigUrl = await listen((req, res) => {
      res.on("finish", () => statuses.push(res.statusCode));
      return current(req, res);
    });
    const executor = newExecutor({ serveUrl: sigUrl });
    await executor.start();
    current = handlers.rejecting;
    statuses.length = 0;
    await executor.sendEvents([{ id: crypto.randomUUID(), name: "test/sig", data: { tag: sigTag }, ts: Date.now() }]);
    const { rows } = await eventually(
      "the run to fail",
      async () => {
        const result = await pool.query<RunRecord>(`SELECT * FROM executor_runs WHERE function_id = 'contract-sig-target' AND event->'data'->>'tag' = $1`, [sigTag]);
        return result.rows[0]?.status === "failed" ? result : undefined;
      },
      30_000, // generous: the whole unit suite runs in parallel on two cores
    );
    await executor.stop();
    expect(hits).toEqual([]);
    expect(statuses.length).toBe(2); // retries: 1 → two attempts, both refused
    expect(new Set(statuses)).toEqual(new Set([401]));
    expect(JSON.stringify(rows[0]!.error)).toMatch(/Unauthorized/);
  });
});
