import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { LabelAssetData } from "@/lib/assets/labels/request";
import { insertProject, startMigratedDatabase, type MigratedDatabase } from "@/tests/support/migrated-database";

/**
 * The labels-due queue against a real PostgreSQL (the job runner replaced by the outbox's rows):
 * decisions of one window make one job, which drains after the window; a reprocessed asset's newer
 * row survives the older generation's removal; a queue left waiting gets one more job.
 */
vi.mock("@/lib/jobs/outbox", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/jobs/outbox")>()),
  kickOutbox: () => Promise.resolve(),
}));

let database: MigratedDatabase;
let pool: pg.Pool;
let queue: typeof import("@/lib/assets/labels/queue");
let run: typeof import("@/lib/assets/labels/run");
let foreground: typeof import("@/lib/core/foreground");
let withTransaction: typeof import("@/lib/db/transaction").withTransaction;
let disconnectDb: typeof import("@/lib/db/client").disconnectDb;
let projectId: string;

beforeAll(async () => {
  database = await startMigratedDatabase("label-queue");
  vi.stubEnv("DATABASE_URL", database.url);
  vi.stubEnv("SIEVE_PROCESSING_RECONCILE_SECONDS", "5");
  vi.stubEnv("DATA_DIR", await mkdtemp(path.join(os.tmpdir(), "label-queue-")));
  pool = database.pool({ max: 2 });
  queue = await import("@/lib/assets/labels/queue");
  run = await import("@/lib/assets/labels/run");
  foreground = await import("@/lib/core/foreground");
  ({ withTransaction } = await import("@/lib/db/transaction"));
  ({ disconnectDb } = await import("@/lib/db/client"));
  projectId = await insertProject(pool);
}, 120_000);

afterAll(async () => {
  await disconnectDb?.();
  await database?.stop();
});

async function newAsset(): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO assets (id, project_id, name, type, status, updated_at) VALUES (gen_random_uuid(), $1, 'a.jpg', 'image', 'approved', now()) RETURNING id`,
    [projectId],
  );
  return rows[0]!.id;
}

const request = (assetId: string, generation = 1): LabelAssetData => ({ projectId, assetId, generation, sources: 1, frames: false });

/** Queues like a decision does: in a transaction, then the after-commit call. */
async function decide(assetId: string, generation = 1): Promise<void> {
  const window = await withTransaction(pool, (client) => queue.queueLabelling(client, request(assetId, generation)));
  queue.labellingQueued(window);
}

/** The queue, oldest first, without the queue times. */
async function queued(): Promise<LabelAssetData[]> {
  return (await queue.takeDueLabels(10)).map(({ queuedAt: _queuedAt, ...rest }) => rest);
}

async function dueJobs(): Promise<{ event_id: string; data: { drainAt: number } }[]> {
  const { rows } = await pool.query(`SELECT event_id, data FROM pipeline_outbox WHERE name = $1 ORDER BY id`, [queue.LABELS_DUE_EVENT]);
  return rows;
}

describe("label queue", () => {
  it("decisions in one window queue every asset and one job, which drains after the window", async () => {
    await pool.query(`DELETE FROM pipeline_outbox; DELETE FROM label_queue`);
    // Start just inside a window, so the three decisions share it.
    const wait = queue.LABELS_DUE_WINDOW_MS - (Date.now() % queue.LABELS_DUE_WINDOW_MS);
    await new Promise((resolve) => setTimeout(resolve, wait + 10));
    const ids = [await newAsset(), await newAsset(), await newAsset()];
    for (const id of ids) {
      await decide(id);
      // queued_at has millisecond precision, and decisions in the same millisecond are equally old
      // (the queue then orders them by asset id): a few ms apart, the queue's order is theirs.
      await new Promise((resolve) => setTimeout(resolve, 3));
    }

    const jobs = await dueJobs();
    expect(jobs).toHaveLength(1);
    const windowEnd = (Math.floor(Date.now() / queue.LABELS_DUE_WINDOW_MS) + 1) * queue.LABELS_DUE_WINDOW_MS;
    expect(jobs[0]!.data.drainAt).toBeGreaterThan(windowEnd);
    expect((await queued()).map((r) => r.assetId)).toEqual(ids);

    // The next window's decision makes the next job.
    await new Promise((resolve) => setTimeout(resolve, queue.LABELS_DUE_WINDOW_MS));
    await decide(await newAsset());
    expect(await dueJobs()).toHaveLength(2);
  });

  it("a job is not remembered as sent when its transaction rolls back", async () => {
    await pool.query(`DELETE FROM pipeline_outbox; DELETE FROM label_queue`);
    const wait = queue.LABELS_DUE_WINDOW_MS - (Date.now() % queue.LABELS_DUE_WINDOW_MS);
    await new Promise((resolve) => setTimeout(resolve, wait + 10));
    const first = await newAsset();
    await expect(
      withTransaction(pool, async (client) => {
        await queue.queueLabelling(client, request(first));
        throw new Error("the decision failed");
      }),
    ).rejects.toThrow("the decision failed");
    expect(await dueJobs()).toHaveLength(0);
    await decide(first);
    expect(await dueJobs()).toHaveLength(1);
    expect(await queue.takeDueLabels(10)).toHaveLength(1);
  });

  it("removing a labelled generation leaves a newer decision's row queued", async () => {
    await pool.query(`DELETE FROM label_queue`);
    const id = await newAsset();
    await decide(id, 1);
    await decide(id, 2); // reprocessed before the labelling ran
    expect(await queued()).toEqual([request(id, 2)]);
    await queue.removeFromLabelQueue(request(id, 1));
    expect(await queued()).toEqual([request(id, 2)]);
    await queue.removeFromLabelQueue(request(id, 2));
    expect(await queued()).toEqual([]);
  });

  it("a deleted asset leaves the queue with it", async () => {
    await pool.query(`DELETE FROM label_queue`);
    const id = await newAsset();
    await decide(id);
    await pool.query(`DELETE FROM assets WHERE id = $1`, [id]);
    expect(await queued()).toEqual([]);
  });

  it("a queue waiting longer than the reconcile period gets one more job; an empty or fresh one none", async () => {
    await pool.query(`DELETE FROM pipeline_outbox; DELETE FROM label_queue`);
    expect(await queue.reconcileLabelQueue()).toBe(false);
    await decide(await newAsset());
    await pool.query(`DELETE FROM pipeline_outbox`); // the job was lost
    expect(await queue.reconcileLabelQueue()).toBe(false);
    await pool.query(`UPDATE label_queue SET queued_at = now() - interval '6 seconds'`);
    expect(await queue.reconcileLabelQueue()).toBe(true);
    expect(await dueJobs()).toHaveLength(1);
  });

  it("labelling waits while moderation is busy, and goes ahead once an asset has waited SIEVE_IMAGE_LABELS_YIELD_MS", async () => {
    await pool.query(`DELETE FROM label_queue`);
    const id = await newAsset();
    await decide(id);
    let release!: () => void;
    const moderating = foreground.asForeground(() => new Promise<void>((resolve) => (release = resolve)));
    try {
      const busy = await run.labelDueAssets(20, { stepWaitMs: 300 });
      expect(busy).toMatchObject({ taken: 1, deferred: true, labelled: 0, skipped: 0, failed: [] });
      expect(await queued()).toEqual([request(id)]);

      // Decided 11 minutes ago (the default limit is 10): labelled now, busy or not. Its copy is
      // gone (this test stored none), so it settles as skipped and leaves the queue.
      await pool.query(`UPDATE label_queue SET queued_at = now() - interval '11 minutes'`);
      const overdue = await run.labelDueAssets(20, { stepWaitMs: 300 });
      expect(overdue).toMatchObject({ taken: 1, deferred: false, skipped: 1, failed: [] });
      expect(await queued()).toEqual([]);
    } finally {
      release();
      await moderating;
    }
  });
});
