import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { DispatchedDelivery } from "@/lib/connectors/delivery/first-attempts";
import { recordEvents, type NewEvent } from "@/lib/events/record";
import { insertConnector, insertProject, startMigratedDatabase, type ConnectorOptions, type MigratedDatabase } from "@/tests/support/migrated-database";
import { dispatchedTitle } from "@/tests/support/dispatched";

/**
 * The connector dispatcher against a real, migrated PostgreSQL: every committed event becomes one
 * delivery per matching connector, once, in feed order, including events whose transaction commits
 * after a later one's; a delivery's row is written once, and a sweep writes and queues what a crash
 * left unstored or unattempted. First attempts are replaced by a recorder, and sending to Inngest is
 * stubbed (the jobs stay in the outbox, where we read them).
 */
vi.mock("@/lib/jobs/outbox", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/jobs/outbox")>()),
  kickOutbox: async () => undefined,
}));

let database: MigratedDatabase;
let pool: pg.Pool;
let dispatch: typeof import("@/lib/connectors/dispatch");
let store: typeof import("@/lib/connectors/delivery/store");
const started: DispatchedDelivery[] = [];
const dispatchEvents = () => dispatch.dispatchEvents((deliveries) => started.push(...deliveries));
let disconnectDb: typeof import("@/lib/db/client").disconnectDb;

beforeAll(async () => {
  database = await startMigratedDatabase("dispatch");
  vi.stubEnv("DATABASE_URL", database.url);
  pool = database.pool({ max: 6 });
  dispatch = await import("@/lib/connectors/dispatch");
  store = await import("@/lib/connectors/delivery/store");
  ({ disconnectDb } = await import("@/lib/db/client"));
}, 120_000);

afterAll(async () => {
  await disconnectDb?.();
  await database?.stop();
  vi.unstubAllEnvs();
});

beforeEach(async () => {
  await pool.query("TRUNCATE connector_deliveries, connector_dispatch_passes, connectors, pipeline_outbox, events CASCADE");
  started.length = 0;
});

const project = () => insertProject(pool);
const connector = (projectId: string, options: ConnectorOptions = {}) => insertConnector(pool, projectId, options);

const event = (projectId: string, type: NewEvent["type"] = "asset.uploaded"): NewEvent => ({ projectId, type, title: type, facts: [] });

/** What the dispatcher handed to the first attempts (their rows are written by the attempts). */
const dispatched = () => started.map((d) => ({ connector_id: d.connectorId, type: d.event!.type, title: dispatchedTitle(d) }));

/** A success of dispatched delivery `d`'s first attempt, as the hot path records it. */
const success = (d: DispatchedDelivery) => ({
  deliveryId: d.deliveryId,
  connectorId: d.connectorId,
  attempt: 1,
  startedMs: Date.now(),
  latencyMs: 3,
  statusCode: 200,
  error: null,
  responseExcerpt: "ok",
  lastSuccessAt: null,
  unsaved: d,
});

/** Two events dispatched to a new connector and their rows stored, their first attempts never made (as a crash leaves them). */
async function storedUnattempted(): Promise<{ hook: string }> {
  const p = await project();
  const hook = await connector(p);
  await recordEvents(pool, [event(p), event(p)]);
  await dispatchEvents();
  const { storeDispatched } = await import("@/lib/connectors/delivery/passes");
  await storeDispatched(started);
  return { hook };
}

/** Makes every delivery and pass old enough for the sweep (CONNECTOR_SWEEP_AFTER_SECONDS). */
async function ageForTheSweep(): Promise<void> {
  await pool.query("UPDATE connector_deliveries SET created_at = now() - interval '2 minutes'");
  await pool.query("UPDATE connector_dispatch_passes SET created_at = now() - interval '2 minutes'");
}

const passCount = async () => Number((await pool.query<{ n: string }>("SELECT count(*) AS n FROM connector_dispatch_passes")).rows[0]!.n);

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
    expect(await deliveries(), "no row before the first attempt").toEqual([]);
    expect(await passCount()).toBe(1);
    const made = dispatched();
    expect(made.filter((d) => d.connector_id === all).map((d) => d.type)).toEqual(["asset.uploaded", "asset.flagged"]);
    expect(made.filter((d) => d.connector_id === flaggedOnly).map((d) => d.type)).toEqual(["asset.flagged"]);
    expect(made.some((d) => d.connector_id === otherProject)).toBe(false);
    expect(started).toHaveLength(3);
    // A second pass finds nothing new.
    expect((await dispatchEvents()).deliveries).toBe(0);
    expect(started).toHaveLength(3);
  });

  it("writes and queues the deliveries of a pass a crash left unstored, once, keeping those already recorded", async () => {
    const p = await project();
    await connector(p);
    await recordEvents(pool, [event(p), event(p), event(p)]);
    await dispatchEvents();
    const [recorded, recovered, late] = started;
    // The first attempt of one succeeded and was recorded before the crash: one row, the attempt in it.
    expect(await store.recordSuccesses(pool, [success(recorded!)])).toEqual([store.SUCCEEDED]);
    const { rows: kept } = await pool.query(
      `SELECT status::text AS status, attempts, last_status_code, first_latency_ms, first_response_excerpt,
              (SELECT count(*)::int FROM connector_delivery_attempts a WHERE a.delivery_id = d.id) AS attempt_rows
         FROM connector_deliveries d WHERE d.id = $1`,
      [recorded!.deliveryId],
    );
    expect(kept).toEqual([{ status: "succeeded", attempts: 1, last_status_code: 200, first_latency_ms: 3, first_response_excerpt: "ok", attempt_rows: 0 }]);
    // Recording it again changes nothing (the attempt is in the row).
    expect(await store.recordSuccesses(pool, [{ ...success(recorded!), unsaved: null }])).toEqual([null]);
    // A job that runs it (a re-sent message) finds attempt 1 recorded and sends nothing.
    const { loadDelivery } = await import("@/lib/connectors/delivery/load");
    expect((await loadDelivery(pool, recorded!.deliveryId, 1))?.recordedAttempt).toEqual({ statusCode: 200, error: null });

    // Nothing is queued while the first attempts may still be running.
    expect(await dispatch.sweepLostDeliveries()).toBe(0);
    await pool.query("UPDATE connector_dispatch_passes SET created_at = now() - interval '2 minutes'");
    expect(await dispatch.sweepLostDeliveries()).toBe(2);
    const { rows: rows } = await pool.query<{ id: string; status: string; queued: boolean }>(
      "SELECT id, status::text AS status, queued_at IS NOT NULL AS queued FROM connector_deliveries ORDER BY created_at, id",
    );
    expect(rows.filter((r) => r.status === "pending" && r.queued).map((r) => r.id).sort()).toEqual([recovered!.deliveryId, late!.deliveryId].sort());
    const { rows: jobs } = await pool.query<{ name: string; event_id: string }>("SELECT name, event_id FROM pipeline_outbox");
    expect(jobs.map((j) => j.name)).toEqual(["sieve/connector.delivery.requested", "sieve/connector.delivery.requested"]);
    expect(new Set(jobs.map((j) => j.event_id)).size).toBe(2);
    expect(await passCount()).toBe(0);
    expect(await dispatch.sweepLostDeliveries()).toBe(0);

    // A first attempt that ends after the sweep records onto the row the sweep wrote (no second row),
    // in the same batch as a success whose row is not written yet (a later pass's).
    await recordEvents(pool, [event(p)]);
    await dispatchEvents();
    const fresh = started[3]!;
    expect(await store.recordSuccesses(pool, [success(late!), success(fresh)])).toEqual([store.SUCCEEDED, store.SUCCEEDED]);
    const { rows: freshRows } = await pool.query("SELECT status::text AS status, attempts, first_latency_ms FROM connector_deliveries WHERE id = $1", [
      fresh.deliveryId,
    ]);
    expect(freshRows).toEqual([{ status: "succeeded", attempts: 1, first_latency_ms: 3 }]);
    const { rows: lateRows } = await pool.query("SELECT status::text AS status, attempts FROM connector_deliveries WHERE event_id = $1", [
      late!.eventId,
    ]);
    expect(lateRows).toEqual([{ status: "succeeded", attempts: 1 }]);
    const { rows: lateLog } = await pool.query("SELECT attempt, status_code FROM connector_delivery_attempts WHERE delivery_id = $1", [late!.deliveryId]);
    expect(lateLog).toEqual([{ attempt: 1, status_code: 200 }]);
  });

  it("clears a pass once every delivery of it has its row", async () => {
    const p = await project();
    await connector(p);
    await recordEvents(pool, [event(p), event(p)]);
    await dispatchEvents();
    expect(await passCount()).toBe(1);
    await store.recordSuccesses(pool, [success(started[0]!)]);
    expect(await passCount()).toBe(1);
    await store.recordSuccesses(pool, [success(started[1]!)]);
    const deadline = Date.now() + 5_000;
    while ((await passCount()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await passCount()).toBe(0);
  });

  it("stores each success of a batch with its own answer, whatever the answer's text", async () => {
    const p = await project();
    await connector(p);
    await recordEvents(pool, [event(p), event(p), event(p)]);
    await dispatchEvents();
    const answers = ['{"ok":true, "note": "quoted \\ and \\"escaped\\""}', "line one\nline two\ttabbed, ünïcödé ✓", null];
    const statuses = [200, 204, 202];
    const outcomes = await store.recordSuccesses(
      pool,
      started.map((d, i) => ({ ...success(d), responseExcerpt: answers[i]!, statusCode: statuses[i]!, latencyMs: 10 + i })),
    );
    expect(outcomes).toEqual([store.SUCCEEDED, store.SUCCEEDED, store.SUCCEEDED]);
    const { rows } = await pool.query(
      "SELECT id, last_status_code, first_latency_ms, first_response_excerpt FROM connector_deliveries WHERE id = ANY ($1::uuid[])",
      [started.map((d) => d.deliveryId)],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    started.forEach((d, i) =>
      expect(byId.get(d.deliveryId)).toEqual({ id: d.deliveryId, last_status_code: statuses[i], first_latency_ms: 10 + i, first_response_excerpt: answers[i] }),
    );
  });

  it("finds an event's deliveries to a connector, its first by its id and its replays by their index", async () => {
    const p = await project();
    const [hook, other] = [await connector(p), await connector(p)];
    await recordEvents(pool, [event(p), event(p)]);
    await dispatchEvents();
    await store.recordSuccesses(pool, started.map(success));
    const [first] = started.filter((d) => d.connectorId === hook);
    const eventId = first!.eventId;
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO connector_deliveries (id, connector_id, event_id, replay_of, status, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, 'pending', now()) RETURNING id`,
      [hook, eventId, first!.deliveryId],
    );
    const { deliveriesOfEvent } = await import("@/lib/connectors/deliveries");
    const passes = await import("@/lib/connectors/delivery/passes");
    expect((await deliveriesOfEvent(hook, eventId)).sort()).toEqual([first!.deliveryId, rows[0]!.id].sort());
    const toOther = started.find((d) => d.connectorId === other && d.eventId === eventId)!;
    expect(await deliveriesOfEvent(other, eventId)).toEqual([toOther.deliveryId]);
    // The lookup's predicate for replays is the partial index's, as the migration wrote it: the index serves it.
    const client = await pool.connect();
    try {
      await client.query("SET enable_seqscan = off");
      const { rows: plan } = await client.query(`EXPLAIN SELECT id FROM connector_deliveries WHERE event_id = $1 AND ${passes.OTHER_EVENT_DELIVERY}`, [eventId]);
      expect(plan.map((row) => row["QUERY PLAN"]).join("\n")).toContain("connector_deliveries_other_event_idx");
    } finally {
      await client.query("RESET enable_seqscan");
      client.release();
    }
  });

  it("hands stored deliveries a crash left unattempted to the job runner, once", async () => {
    await storedUnattempted();
    expect(await dispatch.sweepLostDeliveries()).toBe(0);
    await ageForTheSweep();
    expect(await dispatch.sweepLostDeliveries()).toBe(2);
    expect(await dispatch.sweepLostDeliveries()).toBe(0);
    expect((await deliveries()).length).toBe(2);
  });

  it("hands a failed first attempt whose hand-off a crash lost to the job runner, once", async () => {
    const { hook } = await storedUnattempted();
    // The first attempt failed and was recorded (pending, a retry due); the process died before it
    // handed the delivery to the job runner. The other delivery's hand-off committed.
    const [failed, handedOff] = started;
    const saved = await store.recordAttempt(pool, {
      deliveryId: failed!.deliveryId,
      connectorId: hook,
      attempt: 1,
      startedMs: Date.now(),
      latencyMs: 5,
      statusCode: 502,
      error: "HTTP 502",
      responseExcerpt: null,
      status: "pending",
      retryDelayMs: 200,
      resetConnector: false,
    });
    expect(saved?.status).toBe("pending");
    await pool.query("UPDATE connector_deliveries SET queued_at = now() WHERE id = $1", [handedOff!.deliveryId]);
    await ageForTheSweep();

    expect(await dispatch.sweepLostDeliveries()).toBe(1);
    const { rows: jobs } = await pool.query<{ event_id: string }>("SELECT event_id FROM pipeline_outbox");
    expect(jobs.map((j) => j.event_id)).toEqual([`delivery-${failed!.deliveryId}`]);
    expect(await dispatch.sweepLostDeliveries()).toBe(0);
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
    expect(dispatched().filter((d) => d.connector_id === hook).map((d) => d.title)).toEqual([
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
    expect(new Set(started.map((d) => d.deliveryId)).size).toBe(started.length);
    expect(total).toBe(2 * 1200);
  });

  it("reads a burst pass by pass as the first attempts make room, not all at once", async () => {
    const p = await project();
    await connector(p);
    await recordEvents(pool, Array.from({ length: 350 }, () => event(p)));
    let passesAllowed = 0; // each time the lanes have room, one more pass
    const room = () => (passesAllowed > 0 ? (passesAllowed--, true) : false);
    const running = dispatch.dispatchEvents((deliveries) => started.push(...deliveries), room);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started).toHaveLength(0);
    passesAllowed = 1;
    await vi.waitFor(() => expect(started).toHaveLength(100));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(started).toHaveLength(100); // no room: the next pass waits
    passesAllowed = Infinity;
    expect((await running).deliveries).toBe(350);
    expect(new Set(started.map((d) => d.deliveryId)).size).toBe(350);
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
    expect(dispatched().map((d) => d.title)).toEqual(["after"]);
  });
});

describe("the running dispatcher", () => {
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
      // Dispatched: its pass is noted at once, its row written once its first attempt is over. The
      // connector's creation ended the idle state (its NOTIFY), so this is well before the poll (5 s).
      await waitFor(
        "a delivery for the event after the connector",
        async () => (await passCount()) > 0 || (await deliveries()).some((d) => d.type === "asset.flagged"),
        1_500,
      );
    } finally {
      await stop();
    }
  });

  it("starts no pass once stopped (a late wake-up included), and its next start dispatches what came meanwhile", async () => {
    const projectId = await project();
    await connector(projectId);
    const stop = dispatch.startConnectorDispatcher();
    await stop();
    const before = await cursor();
    await recordEvents(pool, [event(projectId)]);
    dispatch.wakeDispatcher(true); // a notification arriving after the stop
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await cursor(), "no pass after the stop").toBe(before);

    const restarted = dispatch.startConnectorDispatcher();
    await waitFor("the event's pass after the next start", async () => (await cursor()) !== before, 3_000).finally(restarted);
  });
});
