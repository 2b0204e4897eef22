import { hash } from "node:crypto";
import type pg from "pg";
import { singletonGetter } from "@/lib/core/singleton";
import { sqlPool } from "@/lib/db/client";

/**
 * Deliveries are written once. The dispatcher (lib/connectors/dispatch.ts) stores no delivery row:
 * it notes its pass (the range of events it turned into deliveries) in the transaction that moves
 * its position, and a delivery's row is written after its first attempt, with the outcome
 * (store.ts: INSERT_FIRST_SUCCESSES), or before anything else reads it (storeDispatched). A
 * success is then one insert of its row, with its attempt in it, instead of an insert at dispatch
 * and an attempt row plus an update afterwards (bench/events.ts: PostgreSQL's CPU per delivery).
 *
 * When every delivery of a pass has its row, the pass's row goes. A pass row a minute old
 * (CONNECTOR_SWEEP_AFTER_SECONDS) means the process that dispatched it died (or its database
 * writes failed) before storing them all: the sweep (RECOVER_DISPATCH_PASS) writes the missing
 * deliveries, pending, and queues them for the job runner. A delivery's id is derived from its
 * event and connector (FIRST_DELIVERY_ID), so a row is never written twice whoever writes it first:
 * a late success of a recovered delivery records its attempt on the row the sweep wrote
 * (RECORD_SUCCESSES), and the job then finds it done.
 */

/**
 * The id of an event's (first) delivery to a connector, from SQL expressions for the two ids: a
 * UUID (version 8, RFC 9562's custom version) from the MD5 of the two ids. Replays and test
 * messages get random ids, as first deliveries did before (legacy_random_id marks those).
 */
export const firstDeliveryIdOf = (eventId: string, connectorId: string) =>
  `(overlay(overlay(md5(${eventId}::text || ${connectorId}::text) placing '8' from 13 for 1) placing '8' from 17 for 1))::uuid`;

export const FIRST_DELIVERY_ID = firstDeliveryIdOf("e.id", "c.id");

/**
 * FIRST_DELIVERY_ID of two ids in their text form (lowercase, hyphenated, as node-postgres returns
 * a uuid), computed here: the dispatcher's, for every delivery, where PostgreSQL's MD5, overlays
 * and uuid cast cost it ~2 µs of CPU per delivery (bench/events.ts). Node's one-shot crypto.hash
 * takes ~0.6 µs, createHash ~1.9 (a Hash object per call). The sweep writes the same ids in SQL
 * (tests/unit/connector-dispatch.test.ts holds the two alike).
 */
export function firstDeliveryId(eventId: string, connectorId: string): string {
  const hex = hash("md5", eventId + connectorId, "hex");
  // Joined into one flat string, not a rope of pieces (see storedEvent in load.ts).
  return [hex.slice(0, 8), "-", hex.slice(8, 12), "-8", hex.slice(13, 16), "-8", hex.slice(17, 20), "-", hex.slice(20)].join("");
}

/**
 * A delivery of an event whose id is not that event's first-delivery id: a replay, or a first
 * delivery with a legacy random id. The predicate of the partial index
 * `connector_deliveries_other_event_idx` (migration deliveries_other_event_flag), which a query
 * must repeat as it is for PostgreSQL to use the index: two columns, not the derivation, so that
 * writing a delivery costs no MD5.
 */
export const OTHER_EVENT_DELIVERY = `(replay_of IS NOT NULL OR legacy_random_id)`;

/** A connector's deliveries of event $1 (connector $2): its first delivery by its id, the others by their index. */
export const SELECT_EVENT_DELIVERY_IDS = `SELECT id FROM connector_deliveries
  WHERE connector_id = $2::uuid AND (id = ${firstDeliveryIdOf("$1::uuid", "$2::uuid")} OR (event_id = $1::uuid AND ${OTHER_EVENT_DELIVERY}))`;

/** Which connectors receive event `e`: enabled ones of its project created before it, subscribed to its type (none = all). */
export const RECEIVING_CONNECTORS = `connectors c ON c.project_id = e.project_id AND c.enabled AND c.created_at <= e.created_at
                     AND (cardinality(c.event_types) = 0 OR e.type = ANY (c.event_types))`;

export const DELETE_DISPATCH_PASSES = `DELETE FROM connector_dispatch_passes WHERE id = ANY ($1::bigint[])`;

/** Dispatched deliveries (JSON $1) as pending rows, unless written already (or their connector or event is gone). */
export const INSERT_DISPATCHED_DELIVERIES = `INSERT INTO connector_deliveries (id, connector_id, event_id, status, created_at, updated_at)
  SELECT i.id, i.connector_id, i.event_id, 'pending', to_timestamp(i.created_ms / 1000.0), now()
    FROM json_to_recordset($1::json) AS i(id uuid, connector_id uuid, event_id uuid, created_ms float8)
   WHERE EXISTS (SELECT 1 FROM connectors c WHERE c.id = i.connector_id) AND EXISTS (SELECT 1 FROM events e WHERE e.id = i.event_id)
  ON CONFLICT (id) DO NOTHING`;

/**
 * Recovers one pass $1 seconds old (none when another process holds it): its deliveries without a
 * row are written pending and queued (queued_at), and the pass goes. One row per recovered
 * delivery, or one row with null ids when none was missing; no row when no pass was due.
 */
export const RECOVER_DISPATCH_PASS = `WITH pass AS (
  SELECT id, from_txid, from_seq, to_txid, to_seq, created_at FROM connector_dispatch_passes
   WHERE created_at < now() - make_interval(secs => $1::float8)
   ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED),
missing AS (
  INSERT INTO connector_deliveries (id, connector_id, event_id, status, queued_at, created_at, updated_at)
  SELECT ${FIRST_DELIVERY_ID}, c.id, e.id, 'pending', now(), pass.created_at, now()
    FROM pass
    JOIN events e ON (e.txid, e.seq) > (pass.from_txid, pass.from_seq) AND (e.txid, e.seq) <= (pass.to_txid, pass.to_seq)
    JOIN ${RECEIVING_CONNECTORS}
  ON CONFLICT (id) DO NOTHING
  RETURNING id, connector_id),
done AS (DELETE FROM connector_dispatch_passes WHERE id IN (SELECT id FROM pass) RETURNING id)
SELECT missing.id, missing.connector_id FROM done LEFT JOIN missing ON true`;

/** A committed dispatch pass, shared by its deliveries. */
export interface DispatchPass {
  id: string;
  /** When it was committed (ms since the epoch): its deliveries' created_at. */
  createdMs: number;
}

/**
 * A dispatched delivery without its row yet. One object per delivery, shared by everything that
 * handles it, so it is counted as stored once (settleStored).
 */
export interface UnsavedDelivery {
  deliveryId: string;
  connectorId: string;
  eventId: string;
  pass: DispatchPass;
  stored: boolean;
}

/** Deliveries of each pass of this process not stored yet. */
const openPasses = singletonGetter("connectorDispatchPasses", () => new Map<string, number>());

/** Notes a committed pass and how many deliveries it dispatched (before their first attempts start). */
export function trackPass(passId: string, deliveries: number): void {
  openPasses().set(passId, deliveries);
}

/**
 * Counts deliveries as stored (each once), and deletes the passes whose deliveries are now all
 * stored. A failed delete only leaves the pass to the sweep, which finds nothing missing.
 */
export function settleStored(deliveries: Iterable<UnsavedDelivery>): void {
  const passes = openPasses();
  const done: string[] = [];
  for (const delivery of deliveries) {
    if (delivery.stored) continue;
    delivery.stored = true;
    const passId = delivery.pass.id;
    const left = (passes.get(passId) ?? 1) - 1;
    if (left > 0) {
      passes.set(passId, left);
    } else {
      passes.delete(passId);
      done.push(passId);
    }
  }
  if (done.length === 0) return;
  sqlPool()
    .query(DELETE_DISPATCH_PASSES, [done])
    .catch((error: Error) => console.error(`[sieve] connector dispatch passes not cleared (the sweep will): ${error.message}`));
}

/**
 * Writes the rows of dispatched deliveries not stored yet (pending), before anything reads or
 * updates them; throws when the database fails (their pass is then recovered by the sweep). Its
 * own statement, committed before the deliveries count as stored: never inside a caller's
 * transaction, whose rollback would leave them counted but unwritten.
 */
export async function storeDispatched(deliveries: readonly (UnsavedDelivery | null | undefined)[]): Promise<void> {
  const unsaved = deliveries.filter((d): d is UnsavedDelivery => d != null && !d.stored);
  if (unsaved.length === 0) return;
  const rows = unsaved.map((d) => ({ id: d.deliveryId, connector_id: d.connectorId, event_id: d.eventId, created_ms: d.pass.createdMs }));
  await sqlPool().query(INSERT_DISPATCHED_DELIVERIES, [JSON.stringify(rows)]);
  settleStored(unsaved);
}

/**
 * Recovers the passes left `afterSeconds` old; returns the deliveries written (to be queued by the
 * caller, in its transaction).
 */
export async function recoverDispatchPasses(
  client: Pick<pg.PoolClient, "query">,
  afterSeconds: number,
  maxPasses = 20,
): Promise<{ deliveryId: string; connectorId: string }[]> {
  const recovered: { deliveryId: string; connectorId: string }[] = [];
  for (let i = 0; i < maxPasses; i++) {
    const { rows } = await client.query<{ id: string | null; connector_id: string | null }>(RECOVER_DISPATCH_PASS, [afterSeconds]);
    if (rows.length === 0) break;
    for (const row of rows) if (row.id && row.connector_id) recovered.push({ deliveryId: row.id, connectorId: row.connector_id });
  }
  return recovered;
}
