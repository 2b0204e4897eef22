import type pg from "pg";
import { processSingleton } from "@/lib/core/singleton";
import { sqlPool } from "@/lib/db/client";
import {
  LAST_SUCCESS_REFRESH_MS,
  loadDeliveries,
  recordSuccess,
  TOUCH_CONNECTOR_SUCCESS,
  type DeliveryStatus,
  type LoadedDelivery,
  type SuccessRecord,
} from "./store";

/**
 * Batching of the first attempts' database work (first-attempts.ts): the loads of deliveries that
 * start together, and the records of successes that end together, are each one statement, so a
 * burst of deliveries costs a few round trips and commits instead of two per delivery. A call joins
 * the next batch when up to MAX_IN_FLIGHT batches are running, else starts one at once (an idle
 * server adds no wait). RECORD_SUCCESSES is RECORD_SUCCESS (store.ts) for many rows; it holds only
 * delivery rows, and when it fails as a whole (a deadlock with a multi-row update elsewhere, a
 * delivery deleted meanwhile) each success is recorded on its own.
 */
const MAX_IN_FLIGHT = 2;
const MAX_BATCH = 500;

type Queryable = Pick<pg.PoolClient, "query">;

interface Pending<I, O> {
  item: I;
  resolve: (value: O) => void;
  reject: (error: unknown) => void;
}

interface Batcher<I, O> {
  (item: I): Promise<O>;
}

function batcher<I, O>(run: (items: I[]) => Promise<O[]>): Batcher<I, O> {
  const queue: Pending<I, O>[] = [];
  let running = 0;
  const flush = () => {
    while (running < MAX_IN_FLIGHT && queue.length > 0) {
      const batch = queue.splice(0, MAX_BATCH);
      running++;
      run(batch.map((p) => p.item))
        .then(
          (results) => batch.forEach((p, i) => p.resolve(results[i] as O)),
          (error: unknown) => batch.forEach((p) => p.reject(error)),
        )
        .finally(() => {
          running--;
          flush();
        });
    }
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (running < MAX_IN_FLIGHT) queueMicrotask(flush); // gather what starts in this tick
    });
}

/** Loads attempt 1 of deliveries, batched (null: the delivery or its connector was deleted). */
export function loadFirstAttempt(deliveryId: string): Promise<LoadedDelivery | null> {
  const load = processSingleton("connectorDeliveryLoads", () =>
    batcher<string, LoadedDelivery | null>(async (ids) => {
      const loaded = await loadDeliveries(sqlPool(), ids, 1);
      return ids.map((id) => loaded.get(id) ?? null);
    }),
  );
  return load(deliveryId);
}

export const RECORD_SUCCESSES = `WITH input AS (
  SELECT * FROM unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[])
    AS i(delivery_id, attempt, started_at, latency_ms, status_code, response_excerpt)),
attempt AS (
  INSERT INTO connector_delivery_attempts (id, delivery_id, attempt, started_at, latency_ms, status_code, error, response_excerpt)
  SELECT gen_random_uuid(), d.id, i.attempt, i.started_at, i.latency_ms, i.status_code, NULL, i.response_excerpt
    FROM input i JOIN connector_deliveries d ON d.id = i.delivery_id
  ON CONFLICT (delivery_id, attempt) DO NOTHING
  RETURNING delivery_id, attempt, status_code),
delivery AS (
  UPDATE connector_deliveries d
     SET status = 'succeeded',
         attempts = GREATEST(d.attempts, attempt.attempt),
         last_status_code = attempt.status_code,
         last_error = NULL,
         next_attempt_at = NULL,
         finished_at = coalesce(d.finished_at, now()),
         updated_at = now()
    FROM attempt WHERE d.id = attempt.delivery_id
  RETURNING d.id, d.status::text AS status, d.next_attempt_at, d.connector_id)
SELECT delivery.id, delivery.status, delivery.next_attempt_at, delivery.connector_id,
       coalesce(c.consecutive_failures > 0 OR c.failing_since IS NOT NULL, false) AS failing
  FROM delivery LEFT JOIN connectors c ON c.id = delivery.connector_id`;

type Saved = { status: DeliveryStatus; nextAttemptAt: Date | null } | null;

interface SuccessInput {
  record: SuccessRecord;
  lastSuccessAt: Date | null;
}

async function recordSuccesses(db: Queryable, inputs: SuccessInput[]): Promise<Saved[]> {
  if (inputs.length === 1) return [await recordSuccess(db, inputs[0]!.record, inputs[0]!.lastSuccessAt)];
  const records = inputs.map((i) => i.record);
  let rows: { id: string; status: DeliveryStatus; next_attempt_at: Date | null; connector_id: string; failing: boolean }[];
  try {
    ({ rows } = await db.query({
      name: "sieve-delivery-record-successes",
      text: RECORD_SUCCESSES,
      values: [
        records.map((r) => r.deliveryId),
        records.map((r) => r.attempt),
        records.map((r) => r.startedAt.toISOString()), // pg's Date serialisation is slow
        records.map((r) => r.latencyMs),
        records.map((r) => r.statusCode),
        records.map((r) => r.responseExcerpt),
      ],
    }));
  } catch {
    // One by one: each holds a single delivery row, and a deleted delivery only fails its own.
    return Promise.all(inputs.map((i) => recordSuccess(db, i.record, i.lastSuccessAt)));
  }
  await touchConnectors(db, inputs, rows);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return records.map((r) => {
    const row = byId.get(r.deliveryId);
    return row ? { status: row.status, nextAttemptAt: row.next_attempt_at } : null;
  });
}

/** TOUCH_CONNECTOR_SUCCESS once per connector of the batch, where due (see recordSuccess). */
async function touchConnectors(db: Queryable, inputs: SuccessInput[], rows: { connector_id: string; failing: boolean }[]): Promise<void> {
  const failing = new Map<string, boolean>();
  for (const row of rows) failing.set(row.connector_id, (failing.get(row.connector_id) ?? false) || row.failing);
  const stale = new Set(
    inputs
      .filter((i) => i.lastSuccessAt === null || Date.now() - i.lastSuccessAt.getTime() >= LAST_SUCCESS_REFRESH_MS)
      .map((i) => i.record.connectorId),
  );
  for (const [connectorId, reset] of failing) {
    if (reset || stale.has(connectorId)) {
      await db.query({ name: "sieve-delivery-touch-connector", text: TOUCH_CONNECTOR_SUCCESS, values: [connectorId, reset] });
    }
  }
}

/** recordSuccess (store.ts), batched with the successes that end at the same time. */
export function recordSuccessBatched(record: SuccessRecord, lastSuccessAt: Date | null): Promise<Saved> {
  const record1 = processSingleton("connectorDeliverySuccesses", () =>
    batcher<SuccessInput, Saved>((inputs) => recordSuccesses(sqlPool(), inputs)),
  );
  return record1({ record, lastSuccessAt });
}
