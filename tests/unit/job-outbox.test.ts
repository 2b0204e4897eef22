import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { JobMessage } from "@/lib/jobs/client";
import { startMigratedDatabase, type MigratedDatabase } from "@/tests/support/migrated-database";

/**
 * The job outbox against a real PostgreSQL, with the send to Inngest replaced: a send that never
 * answers is given up after SIEVE_JOB_SEND_TIMEOUT_MS, its jobs stay in the outbox, and the retry
 * delivers them, so one hung connection does not stop every later job.
 */
const sends: { messages: readonly JobMessage[]; hang: boolean }[] = [];
let hangNext = 0;
vi.mock("@/lib/jobs/client", () => ({
  sendJobs: (messages: readonly JobMessage[]) => {
    const hang = hangNext > 0;
    hangNext -= 1;
    sends.push({ messages, hang });
    return hang ? new Promise<void>(() => undefined) : Promise.resolve();
  },
}));

let database: MigratedDatabase;
let pool: pg.Pool;
let outbox: typeof import("@/lib/jobs/outbox");
let disconnectDb: typeof import("@/lib/db/client").disconnectDb;

beforeAll(async () => {
  database = await startMigratedDatabase("outbox");
  vi.stubEnv("DATABASE_URL", database.url);
  vi.stubEnv("SIEVE_JOB_SEND_TIMEOUT_MS", "300");
  pool = database.pool({ max: 2 });
  outbox = await import("@/lib/jobs/outbox");
  ({ disconnectDb } = await import("@/lib/db/client"));
}, 120_000);

afterAll(async () => {
  await disconnectDb?.();
  await database?.stop();
  vi.unstubAllEnvs();
});

const waiting = async () => Number((await pool.query<{ n: string }>("SELECT count(*) AS n FROM pipeline_outbox")).rows[0]!.n);

describe("the job outbox", () => {
  it("gives up a send that never answers, keeps its jobs, and delivers them on the retry", async () => {
    const { sqlPool } = await import("@/lib/db/client");
    await outbox.enqueueJobs(sqlPool(), [{ id: "job-1", name: "sieve/test", data: { n: 1 } }]);
    hangNext = 1;
    const started = Date.now();
    await outbox.kickOutbox();
    // The hung send was abandoned at the time limit (not after the test's own timeout).
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(sends).toHaveLength(1);
    expect(await waiting()).toBe(1);

    // A later kick is not swallowed by the abandoned send; the retry timer would do the same in a second.
    await outbox.kickOutbox();
    expect(sends.map((s) => s.hang)).toEqual([true, false]);
    expect(sends[1]!.messages.map((m) => m.id)).toEqual(["job-1"]);
    expect(await waiting()).toBe(0);
  }, 30_000);

  it("sends urgent messages ahead of a backlog: a waiting request's job goes in the first send", async () => {
    const { sqlPool } = await import("@/lib/db/client");
    sends.length = 0;
    const backlog = Array.from({ length: 250 }, (_, n) => ({ id: `bulk-${n}`, name: "sieve/test", data: { n } }));
    await outbox.enqueueJobs(sqlPool(), backlog);
    await outbox.enqueueJobs(sqlPool(), [{ id: "waited-for", name: "sieve/test", data: {}, urgent: true }]);
    await outbox.kickOutbox();
    expect(sends.map((s) => s.messages.length)).toEqual([100, 100, 51]);
    expect(sends[0]!.messages.map((m) => m.id)).toContain("waited-for");
    // The others go in order, batch by batch.
    const sorted = (ids: string[]) => [...ids].sort();
    expect(sorted(sends[0]!.messages.map((m) => m.id).filter((id) => id !== "waited-for"))).toEqual(sorted(backlog.slice(0, 99).map((m) => m.id)));
    expect(sorted(sends[2]!.messages.map((m) => m.id))).toEqual(sorted(backlog.slice(199).map((m) => m.id)));
    expect(await waiting()).toBe(0);
  }, 30_000);
});
