import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { pruneDeliveryLog } from "@/lib/connectors/delivery/retention";
import { insertConnector, insertProject, migratedClient } from "@/tests/support/migrated-database";

/** The deliveries log's retention against a real, migrated PostgreSQL (CONNECTOR_DELIVERY_RETENTION_DAYS). */
const db = migratedClient("retention");
let projectId: string;

beforeAll(async () => {
  projectId = await insertProject(db.client);
});

beforeEach(async () => {
  await db.client.query("DELETE FROM connector_deliveries");
});

type Status = "pending" | "succeeded" | "failed" | "cancelled";

/** A delivery created `daysAgo` days ago, with one attempt logged; `event: false` makes it a test message. */
async function delivery(connectorId: string, status: Status, daysAgo: number, { event = true } = {}): Promise<string> {
  const { rows } = await db.client.query<{ id: string }>(
    `INSERT INTO connector_deliveries (id, connector_id, event_id, status, attempts, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, CASE WHEN $4 THEN gen_random_uuid() END, $2::delivery_status, 1, now() - make_interval(days => $3), now())
     RETURNING id`,
    [connectorId, status, daysAgo, event],
  );
  const id = rows[0]!.id;
  await db.client.query(
    `INSERT INTO connector_delivery_attempts (id, delivery_id, attempt, started_at, latency_ms, status_code) VALUES (gen_random_uuid(), $1, 1, now(), 5, 500)`,
    [id],
  );
  return id;
}

async function remaining(): Promise<{ deliveries: string[]; attempts: string[] }> {
  const deliveries = await db.client.query<{ id: string }>("SELECT id FROM connector_deliveries ORDER BY id");
  const attempts = await db.client.query<{ delivery_id: string }>("SELECT delivery_id FROM connector_delivery_attempts ORDER BY delivery_id");
  return { deliveries: deliveries.rows.map((r) => r.id), attempts: attempts.rows.map((r) => r.delivery_id) };
}

describe("pruneDeliveryLog", () => {
  it("deletes every connector's finished deliveries older than the retention, with their attempts, and keeps pending and recent ones", async () => {
    const a = await insertConnector(db.client, projectId);
    const b = await insertConnector(db.client, projectId, { enabled: false });
    const kept = [await delivery(a, "pending", 40), await delivery(a, "succeeded", 29), await delivery(b, "failed", 1)];
    await delivery(a, "succeeded", 40);
    await delivery(a, "failed", 31);
    await delivery(b, "cancelled", 35);
    await delivery(b, "succeeded", 60, { event: false }); // a test message

    expect(await pruneDeliveryLog(db.client, 30)).toBe(4);
    const left = await remaining();
    expect(left.deliveries).toEqual([...kept].sort());
    expect(left.attempts).toEqual([...kept].sort());
  });

  it("works through a backlog in batches, at most maxBatches of them per run; the next run goes on", async () => {
    const connectorId = await insertConnector(db.client, projectId);
    for (let i = 0; i < 5; i++) await delivery(connectorId, "succeeded", 45 + i);
    const recent = await delivery(connectorId, "succeeded", 2);

    expect(await pruneDeliveryLog(db.client, 30, { batch: 2, maxBatches: 2 })).toBe(4);
    expect((await remaining()).deliveries).toHaveLength(2);
    expect(await pruneDeliveryLog(db.client, 30, { batch: 2, maxBatches: 2 })).toBe(1);
    expect((await remaining()).deliveries).toEqual([recent]);
    expect(await pruneDeliveryLog(db.client, 30, { batch: 2 })).toBe(0);
  });

  it("keeps everything with a retention of 0", async () => {
    const connectorId = await insertConnector(db.client, projectId);
    const old = await delivery(connectorId, "succeeded", 3650);
    expect(await pruneDeliveryLog(db.client, 0)).toBe(0);
    expect((await remaining()).deliveries).toEqual([old]);
  });
});
