import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DispatchedDelivery } from "@/lib/connectors/delivery/first-attempts";
import { recordEvents } from "@/lib/events/record";
import { insertProject, startMigratedDatabase, type MigratedDatabase } from "@/tests/support/migrated-database";
import { dispatchedTitle } from "@/tests/support/dispatched";

/**
 * First attempts use a delivery as the dispatcher read it only while its connector is unchanged
 * (lib/connectors/delivery/connector-changes.ts). Against a real, migrated PostgreSQL: the dispatcher
 * hands over each delivery with its connector and event, and the trigger announces exactly the
 * changes an attempt cares about (a last-success stamp is not one; a new URL, turning off and
 * deletion are), and the dispatcher reads a connector again only after such a change.
 */
vi.mock("@/lib/jobs/outbox", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/jobs/outbox")>()),
  kickOutbox: async () => undefined,
}));

let database: MigratedDatabase;
let pool: pg.Pool;
let changes: typeof import("@/lib/connectors/delivery/connector-changes");
let dispatch: typeof import("@/lib/connectors/dispatch");
let stopWatching: () => Promise<void>;
let disconnectDb: typeof import("@/lib/db/client").disconnectDb;

beforeAll(async () => {
  database = await startMigratedDatabase("connector-changes");
  vi.stubEnv("DATABASE_URL", database.url);
  pool = database.pool({ max: 4 });
  changes = await import("@/lib/connectors/delivery/connector-changes");
  dispatch = await import("@/lib/connectors/dispatch");
  ({ disconnectDb } = await import("@/lib/db/client"));
}, 120_000);

afterAll(async () => {
  await stopWatching?.();
  await disconnectDb?.();
  await database?.stop();
  vi.unstubAllEnvs();
});

async function projectWithConnectors(count: number): Promise<{ projectId: string; connectorIds: string[] }> {
  const projectId = await insertProject(pool);
  const connectorIds: string[] = [];
  for (let i = 0; i < count; i++) {
    const { rows: created } = await pool.query<{ id: string }>(
      `INSERT INTO connectors (id, project_id, type, name, url, secret, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'webhook', $2, $3, 'whsec_x', now() - interval '1 minute', now()) RETURNING id`,
      [projectId, `hook ${i}`, `https://example.test/hook-${i}`],
    );
    connectorIds.push(created[0]!.id);
  }
  return { projectId, connectorIds };
}

async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("connector changes", () => {
  it("counts nothing as unchanged before the listener is up", () => {
    expect(changes.connectorStamp()).toBeNull();
    expect(changes.unchangedSince("any", changes.connectorStamp())).toBe(false);
  });

  it("hands each dispatched delivery over with its connector and event, in the feed's order", async () => {
    const { projectId, connectorIds } = await projectWithConnectors(2);
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      await recordEvents(client, [
        { projectId, type: "asset.uploaded", title: "first", facts: [] },
        { projectId, type: "asset.flagged", title: "second", facts: [] },
      ]);
      await client.query("COMMIT");
    } finally {
      client.release();
    }
    const handed: DispatchedDelivery[] = [];
    await dispatch.dispatchEvents((deliveries) => handed.push(...deliveries));
    expect(handed.map((d) => [dispatchedTitle(d), d.connectorId])).toEqual([
      ["first", connectorIds[0]],
      ["first", connectorIds[1]],
      ["second", connectorIds[0]],
      ["second", connectorIds[1]],
    ]);
    const first = handed[0]!;
    expect(first.stored).toBe(false);
    expect(first.connector?.read.connector).toMatchObject({ id: connectorIds[0], url: "https://example.test/hook-0", enabled: true, secret: "whsec_x" });
    expect(first.event).toMatchObject({ type: "asset.uploaded" });
    expect(JSON.parse(first.event!.json)).toMatchObject({ id: first.event!.id, projectId, type: "asset.uploaded", data: { title: "first" } });
  });

  it("announces what an attempt reads of a connector, and its deletion, but not a last-success stamp", async () => {
    stopWatching = changes.watchConnectorChanges();
    await until(() => changes.connectorStamp() !== null);
    const { connectorIds } = await projectWithConnectors(3);
    const [stamped, retargeted, deleted] = connectorIds as [string, string, string];
    const stamp = changes.connectorStamp();
    expect(stamp).not.toBeNull();

    await pool.query("UPDATE connectors SET last_success_at = now(), updated_at = now() WHERE id = $1", [stamped]);
    await pool.query("UPDATE connectors SET url = 'https://example.test/moved' WHERE id = $1", [retargeted]);
    await pool.query("DELETE FROM connectors WHERE id = $1", [deleted]);
    await until(() => !changes.unchangedSince(retargeted, stamp) && !changes.unchangedSince(deleted, stamp));

    expect(changes.unchangedSince(retargeted, stamp)).toBe(false);
    expect(changes.unchangedSince(deleted, stamp)).toBe(false);
    expect(changes.unchangedSince(stamped, stamp)).toBe(true);
    // A stamp taken after a change is current again.
    expect(changes.unchangedSince(retargeted, changes.connectorStamp())).toBe(true);

    await pool.query("UPDATE connectors SET enabled = false WHERE id = $1", [stamped]);
    await until(() => !changes.unchangedSince(stamped, stamp));
    expect(changes.unchangedSince(stamped, stamp)).toBe(false);
  });

  it("reads a connector for the dispatcher once while it is unchanged, and again once it changed", async () => {
    await until(() => changes.connectorStamp() !== null);
    const { projectId, connectorIds } = await projectWithConnectors(1);
    const connectorId = connectorIds[0]!;
    const dispatchOne = async (title: string) => {
      await recordEvents(pool, [{ projectId, type: "asset.uploaded", title, facts: [] }]);
      const handed: DispatchedDelivery[] = [];
      await dispatch.dispatchEvents((deliveries) => handed.push(...deliveries));
      expect(handed).toHaveLength(1);
      return handed[0]!;
    };
    const first = await dispatchOne("one");
    expect(first.connector?.read.connector.secret).toBe("whsec_x");
    // Changed behind the cache's back (no notification for last_success_at): the read is kept.
    await pool.query("UPDATE connectors SET last_success_at = now() WHERE id = $1", [connectorId]);
    const second = await dispatchOne("two");
    expect(second.connector).toBe(first.connector);
    expect(changes.unchangedSince(connectorId, second.connector!.stamp)).toBe(true);

    const stamp = changes.connectorStamp();
    await pool.query("UPDATE connectors SET secret = 'whsec_rotated' WHERE id = $1", [connectorId]);
    await until(() => !changes.unchangedSince(connectorId, stamp));
    const third = await dispatchOne("three");
    expect(third.connector?.read.connector.secret).toBe("whsec_rotated");
    expect(changes.unchangedSince(connectorId, third.connector!.stamp)).toBe(true);
  });
});
