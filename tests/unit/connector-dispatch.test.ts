import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { recordEvents, type NewEvent } from "@/lib/events/record";
import { startMigratedDatabase, type MigratedDatabase } from "@/tests/support/migrated-database";

/**
 * The connector dispatcher against a real, migrated PostgreSQL: every committed event becomes one
 * delivery per matching connector, once, in feed order, including events whose transaction commits
 * after a later one's; a sweep queues what a crash left unattempted. First attempts are replaced by a
 * recorder, and sending to Inngest is stubbed (the jobs stay in the outbox, where we read them).
 */
vi.mock("@/lib/jobs/outbox", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/jobs/outbox")>()),
  kickOutbox: async () => undefined,
}));

let database: MigratedDatabase;
let pool: pg.Pool;
let dispatch: typeof import("@/lib/connectors/dispatch");
const started: string[] = [];
const dispatchEvents = () => dispatch.dispatchEvents((deliveries) => started.push(...deliveries.map((d) => d.deliveryId)));
let disconnectDb: typeof import("@/lib/db/client").disconnectDb;

beforeAll(async () => {
  database = await startMigratedDatabase("dispatch");
  vi.stubEnv("DATABASE_URL", database.url);
  pool = new pg.Pool({ connectionString: database.url, max: 6 });
  // pool.end() resolves before its clients' sessions end; the server's shutdown in afterAll can then
  // terminate one, which the pool reports as an (otherwise uncaught) idle-client error.
  pool.on("error", () => undefined);
  dispatch = await import("@/lib/connectors/dispatch");
  ({ disconnectDb } = await import("@/lib/db/client"));
}, 120_000);

afterAll(async () => {
  await disconnectDb?.();
  await pool?.end();
  await database?.stop();
  vi.unstubAllEnvs();
});

beforeEach(async () => {
  await pool.query("TRUNCATE connector_deliveries, connectors, pipeline_outbox, events CASCADE");
  started.length = 0;
});

async function project(): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(
    `WITH u AS (INSERT INTO users (id, email, updated_at) VALUES (gen_random_uuid(), gen_random_uuid() || '@x.test', now()) RETURNING id)
     INSERT INTO projects (id, name, owner_user_id, updated_at) SELECT gen_random_uuid(), 'p', u.id, now() FROM u RETURNING id`,
  );
  return rows[0]!.id;
}

async function connector(projectId: string, options: { eventTypes?: string[]; enabled?: boolean } = {}): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO connectors (id, project_id, type, name, url, event_types, secret, enabled, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, 'webhook', 'hook', 'https://example.test/hook', $2, 'whsec_x', $3, now() - interval '1 minute', now())
     RETURNING id`,
    [projectId, options.eventTypes ?? [], options.enabled ?? true],
  );
  return rows[0]!.id;
}

const event = (projectId: string, type: NewEvent["type"] = "asset.uploaded"): NewEvent => ({ projectId, type, title: type, facts: [] });

async function deliveries(): Promise<{ connector_id: string; type: string; title: string }[]> {
  const { rows } = await pool.query(
    `SELECT d.connector_id, e.type, e.title FROM connector_deliveries d JOIN events e ON e.id = d.event_id ORDER BY d.created_at, e.seq`,
  );
  return rows;
}

describe("connector dispatcher", () => {
  it("creates one delivery per matching, enabled connector of the event's project, and starts its first attempt", async () => {
    const [a, b] = [await project(), await project()];
    const all = await connector(a);
    const flaggedOnly = await connector(a, { eventTypes: ["asset.flagged"] });
    await connector(a, { enabled: false });
    const otherProject = await connector(b);
    await recordEvents(pool, [event(a), event(a, "asset.flagged")]);

    expect((await dispatchEvents()).deliveries).toBe(3);
    const made = await deliveries();
    expect(made.filter((d) => d.connector_id === all).map((d) => d.type)).toEqual(["asset.uploaded", "asset.flagged"]);
    expect(made.filter((d) => d.connector_id === flaggedOnly).map((d) => d.type)).toEqual(["asset.flagged"]);
    expect(made.some((d) => d.connector_id === otherProject)).toBe(false);
    expect(started).toHaveLength(3);
    // A second pass finds nothing new.
    expect((await dispatchEvents()).deliveries).toBe(0);
    expect(started).toHaveLength(3);
  });

  it("hands deliveries a crash left unattempted to the job runner, once", async () => {
    const p = await project();
    await connector(p);
    await recordEvents(pool, [event(p), event(p)]);
    await dispatchEvents();
    // Nothing is queued while the first attempts may still be running.
    expect(await dispatch.sweepUnattemptedDeliveries()).toBe(0);
    await pool.query("UPDATE connector_deliveries SET created_at = now() - interval '2 minutes'");
    expect(await dispatch.sweepUnattemptedDeliveries()).toBe(2);
    const { rows: jobs } = await pool.query<{ name: string; event_id: string }>("SELECT name, event_id FROM pipeline_outbox");
    expect(jobs.map((j) => j.name)).toEqual(["sieve/connector.delivery.requested", "sieve/connector.delivery.requested"]);
    expect(new Set(jobs.map((j) => j.event_id)).size).toBe(2);
    expect(await dispatch.sweepUnattemptedDeliveries()).toBe(0);
  });

  it("never skips an event whose transaction commits after a later one's", async () => {
    const p = await project();
    const hook = await connector(p);
    const slow = await pool.connect();
    try {
      await slow.query("BEGIN");
      await recordEvents(slow, [{ ...event(p), title: "first, committed last" }]);
      await recordEvents(pool, [{ ...event(p), title: "second, committed first" }]);

      // The open transaction hides everything after it: nothing is dispatched yet, and the pass says so.
      expect(await dispatchEvents()).toEqual({ deliveries: 0, waiting: true });
      await slow.query("COMMIT");
    } finally {
      slow.release();
    }
    expect((await dispatchEvents()).deliveries).toBe(2);
    expect((await deliveries()).filter((d) => d.connector_id === hook).map((d) => d.title)).toEqual([
      "first, committed last",
      "second, committed first",
    ]);
  });

  it("delivers each event once when several processes dispatch at the same time", async () => {
    const p = await project();
    await connector(p);
    await connector(p);
    for (let i = 0; i < 20; i++) await recordEvents(pool, Array.from({ length: 60 }, () => event(p)));
    const passes = await Promise.all(Array.from({ length: 4 }, () => dispatchEvents()));
    // Passes that found the cursor locked return at once; a final pass picks up any remainder.
    const total = passes.reduce((sum, r) => sum + r.deliveries, 0) + (await dispatchEvents()).deliveries;
    const { rows } = await pool.query<{ n: string }>(
      "SELECT count(*) AS n FROM (SELECT 1 FROM connector_deliveries GROUP BY connector_id, event_id HAVING count(*) > 1) dup",
    );
    expect(Number(rows[0]!.n)).toBe(0);
    expect(total).toBe(2 * 1200);
  });

  it("gives a new connector only the events created after it", async () => {
    const p = await project();
    await recordEvents(pool, [event(p)]);
    await dispatchEvents();
    await pool.query(
      `INSERT INTO connectors (id, project_id, type, name, url, secret, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'webhook', 'late', 'https://example.test/late', 'whsec_x', now(), now())`,
      [p],
    );
    await recordEvents(pool, [{ ...event(p), title: "after" }]);
    await dispatchEvents();
    expect((await deliveries()).map((d) => d.title)).toEqual(["after"]);
  });
});

describe("connector dispatcher without connectors", () => {
  const cursor = async () => (await pool.query<{ seq: string }>(`SELECT seq FROM connector_dispatch_cursor WHERE id = 1`)).rows[0]!.seq;
  const waitFor = async (what: string, probe: () => Promise<boolean>, timeoutMs = 5_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it("skips passes for new events while no connector is enabled, and dispatches again once one is", async () => {
    const projectId = await project();
    const stop = dispatch.startConnectorDispatcher();
    try {
      const lastSeq = async () => (await pool.query<{ seq: string }>(`SELECT max(seq)::text AS seq FROM events`)).rows[0]!.seq;
      // Passes run while the listeners come up; once they are, a pass that sees no connector idles.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await recordEvents(pool, [event(projectId)]);
      const passed = await lastSeq();
      await waitFor("the event to be passed", async () => BigInt(await cursor()) >= BigInt(passed));
      await new Promise((resolve) => setTimeout(resolve, 100));
      await recordEvents(pool, [event(projectId)]);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await cursor(), "no pass for an event while nothing could receive it").toBe(passed);

      await connector(projectId);
      await new Promise((resolve) => setTimeout(resolve, 200));
      // created_at of the test connector is a minute ago: events from now on are its to receive.
      await recordEvents(pool, [event(projectId, "asset.flagged")]);
      await waitFor("a delivery for the event after the connector", async () => (await deliveries()).some((d) => d.type === "asset.flagged"));
    } finally {
      await stop();
    }
  });
});
