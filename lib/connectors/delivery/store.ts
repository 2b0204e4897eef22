import type pg from "pg";
import { singletonGetter } from "@/lib/core/singleton";
import { settleStored, type UnsavedDelivery } from "./passes";

/**
 * The delivery side's writes (hand-written: this is the hot path of every delivery; how a delivery
 * is read is load.ts). Locks are always taken connector row
 * first, then delivery rows, like the connectors API does, so concurrent deliveries, disables and
 * replays cannot deadlock. A success of a connector without a failure run (the common case) takes
 * no connector lock at all: RECORD_SUCCESSES touches delivery rows alone (so the deliveries of one
 * connector do not serialise on its row), and `last_success_at` is refreshed at most every few
 * seconds by TOUCH_CONNECTOR_SUCCESS, a single-row autocommit statement of its own (never a
 * connector lock while a delivery row is held). The first success after failures and every failure
 * go through RECORD_ATTEMPT under the connector's row lock (the failure run is reset or grown).
 * Both write the delivery's row with one SET list (deliveryAfterAttempt). First attempts record
 * successes in batches (batched.ts); a dispatched delivery whose row is not written yet is written
 * once, succeeded, with its attempt in it (INSERT_FIRST_SUCCESSES, passes.ts).
 */
type Queryable = Pick<pg.PoolClient, "query">;

export type DeliveryStatus = "pending" | "succeeded" | "failed" | "cancelled";

/** A delivery's state after a recorded attempt; null when nothing was recorded. */
export type SavedAttempt = { status: DeliveryStatus; nextAttemptAt: Date | null } | null;

/**
 * The SET list of a delivery's row after an attempt, from SQL expressions for the attempt's values
 * (the one place that says what an attempt does to its delivery). `status` is the delivery's new
 * status; a delivery cancelled meanwhile (its connector was turned off while the request was in
 * flight) stays cancelled unless this attempt succeeded. A pending delivery's next attempt is due
 * `retryDelayMs` from now; any other status finishes it.
 */
function deliveryAfterAttempt(v: { status: string; attempt: string; statusCode: string; error: string; retryDelayMs: string }): string {
  const retry = `${v.status} = 'pending' AND d.status <> 'cancelled'`;
  return `status = CASE WHEN d.status = 'cancelled' AND ${v.status} <> 'succeeded' THEN d.status ELSE ${v.status} END,
         attempts = GREATEST(d.attempts, ${v.attempt}),
         last_status_code = ${v.statusCode},
         last_error = ${v.error},
         next_attempt_at = CASE WHEN ${retry} THEN now() + make_interval(secs => ${v.retryDelayMs} / 1000) END,
         finished_at = CASE WHEN ${retry} THEN NULL ELSE coalesce(d.finished_at, now()) END,
         updated_at = now()`;
}

/** Whether attempt `attempt` of delivery `id` is recorded in the delivery's row (first_*: INSERT_FIRST_SUCCESSES). */
const FIRST_ATTEMPT_IN_ROW = (id: string, attempt: string) =>
  `(${attempt} = 1 AND EXISTS (SELECT 1 FROM connector_deliveries f WHERE f.id = ${id} AND f.first_started_at IS NOT NULL))`;

/**
 * Records attempt $2 and the delivery's new state ($8, see deliveryAfterAttempt) in one statement,
 * under the connector's row lock. With $11 (a successful attempt of an event delivery) the
 * connector's failure run is reset. Returns no row when attempt $2 was already recorded (in the
 * attempts, or in the delivery's row) or the delivery is gone: nothing is changed then.
 */
export const RECORD_ATTEMPT = `WITH locked AS (SELECT id FROM connectors WHERE id = $10::uuid FOR UPDATE),
attempt AS (
  INSERT INTO connector_delivery_attempts (id, delivery_id, attempt, started_at, latency_ms, status_code, error, response_excerpt)
  SELECT gen_random_uuid(), $1::uuid, $2::int, $3::timestamptz, $4::int, $5::int, $6::text, $7::text FROM locked
   WHERE NOT ${FIRST_ATTEMPT_IN_ROW("$1::uuid", "$2::int")}
  ON CONFLICT (delivery_id, attempt) DO NOTHING
  RETURNING delivery_id),
delivery AS (
  UPDATE connector_deliveries d
     SET ${deliveryAfterAttempt({ status: "$8::delivery_status", attempt: "$2::int", statusCode: "$5::int", error: "$6::text", retryDelayMs: "$9::float8" })}
    FROM attempt WHERE d.id = attempt.delivery_id
  RETURNING d.status::text AS status, d.next_attempt_at),
reset AS (
  UPDATE connectors SET consecutive_failures = 0, failing_since = NULL, last_success_at = now(), updated_at = now()
   WHERE $11::boolean AND id = $10::uuid AND EXISTS (SELECT 1 FROM attempt))
SELECT status, next_attempt_at FROM delivery`;

export interface AttemptRecord {
  deliveryId: string;
  connectorId: string;
  attempt: number;
  /** When the attempt started, ms since the epoch. */
  startedMs: number;
  latencyMs: number;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
  /** The delivery's status after this attempt. */
  status: Exclude<DeliveryStatus, "cancelled">;
  /** With status pending: the wait before the next attempt. */
  retryDelayMs: number | null;
  /** Whether a success resets the connector's failure run (not for test messages). */
  resetConnector: boolean;
}

/** Null when the attempt was already recorded (by a concurrent or earlier call). */
export async function recordAttempt(db: Queryable, r: AttemptRecord): Promise<SavedAttempt> {
  const { rows } = await db.query<{ status: DeliveryStatus; next_attempt_at: Date | null }>({
    name: "sieve-delivery-record-attempt",
    text: RECORD_ATTEMPT,
    values: [
      r.deliveryId,
      r.attempt,
      new Date(r.startedMs),
      r.latencyMs,
      r.statusCode,
      r.error,
      r.responseExcerpt,
      r.status,
      r.retryDelayMs ?? 0,
      r.connectorId,
      r.resetConnector,
    ],
  });
  const row = rows[0];
  return row ? { status: row.status, nextAttemptAt: row.next_attempt_at } : null;
}

/**
 * RECORD_ATTEMPT without the connector, for successes of connectors whose loaded state shows no
 * failure run, any number at once ($1 is a JSON array, one object per success: one parameter the
 * driver passes as it is, rather than six arrays it escapes element by element): records each
 * successful attempt and its delivery's new state ('succeeded', whatever it was: see
 * deliveryAfterAttempt) holding only the delivery rows. No row (and nothing changed) for an attempt
 * already recorded; a delivery deleted meanwhile fails the statement on the attempt's foreign key
 * (recordSuccess then records one by one). `failing` reports a failure run another attempt started
 * meanwhile (read, not locked), which TOUCH_CONNECTOR_SUCCESS then resets. $2 repeats the delivery
 * ids: the plan, made once for a named statement while the table may still be small, then reads
 * deliveries by their key rather than scanning the table.
 */
export const RECORD_SUCCESSES = `WITH input AS (
  SELECT * FROM json_to_recordset($1::json)
    AS i(delivery_id uuid, attempt int, started_at timestamptz, latency_ms int, status_code int, response_excerpt text)),
attempt AS (
  INSERT INTO connector_delivery_attempts (id, delivery_id, attempt, started_at, latency_ms, status_code, error, response_excerpt)
  SELECT gen_random_uuid(), i.delivery_id, i.attempt, i.started_at, i.latency_ms, i.status_code, NULL, i.response_excerpt
    FROM input i
   WHERE NOT ${FIRST_ATTEMPT_IN_ROW("i.delivery_id", "i.attempt")}
  ON CONFLICT (delivery_id, attempt) DO NOTHING
  RETURNING delivery_id, attempt, status_code),
delivery AS (
  UPDATE connector_deliveries d
     SET ${deliveryAfterAttempt({ status: "'succeeded'::delivery_status", attempt: "attempt.attempt", statusCode: "attempt.status_code", error: "NULL::text", retryDelayMs: "0" })}
    FROM attempt WHERE d.id = attempt.delivery_id AND d.id = ANY ($2::uuid[])
  RETURNING d.id, d.connector_id)
SELECT delivery.id, delivery.connector_id, coalesce(c.consecutive_failures > 0 OR c.failing_since IS NOT NULL, false) AS failing
  FROM delivery LEFT JOIN connectors c ON c.id = delivery.connector_id`;

/**
 * RECORD_SUCCESSES for dispatched deliveries whose row is not written yet (passes.ts): writes each
 * delivery's row as succeeded, with its attempt in it (first_*: one row per delivery, written once;
 * $1: JSON, one object per success, times in ms since the epoch). `failing`: connectors with a
 * failure run, as RECORD_SUCCESSES reports them. A connector deleted meanwhile fails the statement
 * on its foreign key (recordSuccess then records one by one); an event is deleted only with its
 * project, connectors included.
 *
 * A row written meanwhile (by the sweep, or before a retry of this batch) is rare: the common
 * statement, INSERT_FIRST_SUCCESSES, fails on it as a whole (unique violation, 23505), sparing
 * every row the conflict check and confirmation of an ON CONFLICT insert (bench/events.ts:
 * PostgreSQL's work per delivery). The batch is then written by INSERT_FIRST_SUCCESSES_SKIPPING,
 * which leaves such rows untouched and names them in `existing`, for RECORD_SUCCESSES.
 */
function firstSuccessesInsert(written: "fail" | "skip"): string {
  const onConflict = written === "skip" ? "\n  ON CONFLICT (id) DO NOTHING" : "";
  const existing =
    written === "skip" ? "array(SELECT i.delivery_id::text FROM input i WHERE NOT EXISTS (SELECT 1 FROM delivery d WHERE d.id = i.delivery_id))" : "'{}'::text[]";
  return `WITH input AS (
  SELECT i.d AS delivery_id, i.c AS connector_id, i.e AS event_id, i.cm AS created_ms, i.sm AS started_ms, i.l AS latency_ms,
         i.s AS status_code, i.x AS response_excerpt
    FROM json_to_recordset($1::json) AS i(d uuid, c uuid, e uuid, cm float8, sm float8, l int, s int, x text)),
delivery AS (
  INSERT INTO connector_deliveries (id, connector_id, event_id, status, attempts, last_status_code, created_at, updated_at, finished_at,
                                    first_started_at, first_latency_ms, first_response_excerpt)
  SELECT i.delivery_id, i.connector_id, i.event_id, 'succeeded', 1, i.status_code, to_timestamp(i.created_ms / 1000.0), now(), now(),
         to_timestamp(i.started_ms / 1000.0), i.latency_ms, i.response_excerpt
    FROM input i${onConflict}
  RETURNING id, connector_id)
SELECT ${existing} AS existing,
       array(SELECT c.id::text FROM connectors c
              WHERE c.id IN (SELECT connector_id FROM delivery) AND (c.consecutive_failures > 0 OR c.failing_since IS NOT NULL)) AS failing`;
}

export const INSERT_FIRST_SUCCESSES = firstSuccessesInsert("fail");
export const INSERT_FIRST_SUCCESSES_SKIPPING = firstSuccessesInsert("skip");

/**
 * A success's mark on its connector, in a statement (and transaction) of its own: `last_success_at`
 * when it is older than a few seconds (so a busy connector's row is written rarely), and with $2
 * the reset of a failure run that began while the attempt was in flight.
 */
export const TOUCH_CONNECTOR_SUCCESS = `UPDATE connectors
   SET last_success_at = now(), updated_at = now(),
       consecutive_failures = CASE WHEN $2::boolean THEN 0 ELSE consecutive_failures END,
       failing_since = CASE WHEN $2::boolean THEN NULL ELSE failing_since END
 WHERE id = $1::uuid AND ($2::boolean OR last_success_at IS NULL OR last_success_at < now() - interval '5 seconds')`;

/** How stale the loaded `last_success_at` may be before a success refreshes it. */
export const LAST_SUCCESS_REFRESH_MS = 5000;

/**
 * When this process last refreshed a connector's `last_success_at`: deliveries dispatched before
 * that carry an older value as loaded, and need not refresh it again.
 */
const MAX_TOUCHED = 1024;
const touchedConnectors = singletonGetter("connectorSuccessTouches", () => new Map<string, number>());

export type SuccessRecord = Omit<AttemptRecord, "status" | "retryDelayMs" | "resetConnector">;

export interface SuccessInput extends SuccessRecord {
  /** The connector's `last_success_at` as loaded: TOUCH_CONNECTOR_SUCCESS when it is stale. */
  lastSuccessAt: Date | null;
  /** A dispatched attempt 1 whose delivery may have no row yet (INSERT_FIRST_SUCCESSES). */
  unsaved?: UnsavedDelivery | null;
}

/** What a recorded success leaves: the delivery succeeded (see deliveryAfterAttempt). */
export const SUCCEEDED: NonNullable<SavedAttempt> = Object.freeze({ status: "succeeded", nextAttemptAt: null });

/**
 * Successes of connectors without a failure run (RECORD_SUCCESSES), then their marks on their
 * connectors where due: one TOUCH_CONNECTOR_SUCCESS per connector. Per input, null when the attempt
 * was already recorded.
 */
export async function recordSuccesses(db: Queryable, inputs: readonly SuccessInput[]): Promise<SavedAttempt[]> {
  const recorded = new Set<string>();
  const failing = new Map<string, boolean>();
  const { stored, unsaved } = await insertFirstSuccesses(db, inputs, recorded, failing);
  if (stored.length > 0) {
    const { rows } = await db.query<{ id: string; connector_id: string; failing: boolean }>({
      name: "sieve-delivery-record-successes",
      text: RECORD_SUCCESSES,
      values: [
        JSON.stringify(
          stored.map((r) => ({
            delivery_id: r.deliveryId,
            attempt: r.attempt,
            started_at: new Date(r.startedMs),
            latency_ms: r.latencyMs,
            status_code: r.statusCode,
            response_excerpt: r.responseExcerpt,
          })),
        ),
        stored.map((r) => r.deliveryId),
      ],
    });
    for (const row of rows) {
      recorded.add(row.id);
      failing.set(row.connector_id, (failing.get(row.connector_id) ?? false) || row.failing);
    }
  }
  settleStored(unsaved);
  const now = Date.now();
  const touched = touchedConnectors();
  const stale = new Set<string>();
  for (const i of inputs) {
    const seen = Math.max(i.lastSuccessAt?.getTime() ?? 0, touched.get(i.connectorId) ?? 0);
    if (now - seen >= LAST_SUCCESS_REFRESH_MS) stale.add(i.connectorId);
  }
  for (const [connectorId, reset] of failing) {
    if (reset || stale.has(connectorId)) {
      await db.query({ name: "sieve-delivery-touch-connector", text: TOUCH_CONNECTOR_SUCCESS, values: [connectorId, reset] });
      touched.set(connectorId, now);
      if (touched.size > MAX_TOUCHED) touched.delete(touched.keys().next().value as string);
    }
  }
  return inputs.map((i) => (recorded.has(i.deliveryId) ? SUCCEEDED : null));
}

/**
 * Writes the successes whose delivery has no row yet (INSERT_FIRST_SUCCESSES), noting them in
 * `recorded` and their connectors' failure runs in `failing`; returns the successes left for
 * RECORD_SUCCESSES (their row exists) and the dispatched deliveries now stored.
 */
async function insertFirstSuccesses(db: Queryable, inputs: readonly SuccessInput[], recorded: Set<string>, failing: Map<string, boolean>) {
  const fresh: SuccessInput[] = [];
  const stored: SuccessInput[] = [];
  for (const input of inputs) (input.unsaved && !input.unsaved.stored && input.attempt === 1 ? fresh : stored).push(input);
  if (fresh.length === 0) return { stored, unsaved: [] };
  const json = firstSuccessesJson(fresh);
  const insert = (name: string, text: string) => db.query<{ existing: string[]; failing: string[] }>({ name, text, values: [json] });
  const { rows } = await insert("sieve-delivery-insert-first-successes", INSERT_FIRST_SUCCESSES).catch((error: { code?: string }) => {
    if (error.code !== UNIQUE_VIOLATION) throw error;
    return insert("sieve-delivery-insert-first-successes-skipping", INSERT_FIRST_SUCCESSES_SKIPPING);
  });
  const existing = new Set(rows[0]?.existing ?? []);
  for (const connectorId of rows[0]?.failing ?? []) failing.set(connectorId, true);
  for (const input of fresh) {
    if (existing.has(input.deliveryId)) {
      stored.push(input);
    } else {
      recorded.add(input.deliveryId);
      failing.set(input.connectorId, failing.get(input.connectorId) ?? false);
    }
  }
  return { stored, unsaved: fresh.map((input) => input.unsaved!) };
}

/**
 * INSERT_FIRST_SUCCESSES' $1, written out rather than by JSON.stringify of an object per success
 * (this runs for every delivery): ids are UUIDs and the numbers finite, so only the excerpt needs
 * escaping; the keys are short, as the statement names them.
 */
function firstSuccessesJson(successes: readonly SuccessInput[]): string {
  let json = "[";
  for (let i = 0; i < successes.length; i++) {
    const r = successes[i] as SuccessInput;
    const unsaved = r.unsaved as UnsavedDelivery;
    if (i > 0) json += ",";
    json += `{"d":"${r.deliveryId}","c":"${r.connectorId}","e":"${unsaved.eventId}","cm":${unsaved.pass.createdMs},"sm":${r.startedMs},`;
    json += `"l":${r.latencyMs},"s":${r.statusCode ?? "null"},"x":${r.responseExcerpt === null ? "null" : JSON.stringify(r.responseExcerpt)}}`;
  }
  return `${json}]`;
}

const UNIQUE_VIOLATION = "23505";

/** One success (recordSuccesses); null also when the delivery was deleted between its load and now. */
export async function recordSuccess(db: Queryable, record: SuccessRecord, lastSuccessAt: Date | null): Promise<SavedAttempt> {
  try {
    return (await recordSuccesses(db, [{ ...record, lastSuccessAt }]))[0] ?? null;
  } catch (error) {
    // 23503: the delivery was deleted (with its connector) between the read and the insert.
    if ((error as { code?: string }).code === "23503") return null;
    throw error;
  }
}

/** Ends a delivery that will not be attempted (again); keeps the last attempt's error if it had one. */
export const CANCEL_DELIVERY = `UPDATE connector_deliveries
   SET status = 'cancelled', next_attempt_at = NULL, finished_at = now(), updated_at = now(),
       last_error = CASE WHEN attempts = 0 THEN $2::text ELSE last_error END
 WHERE id = $1::uuid AND status = 'pending'`;

export async function cancelDelivery(db: Queryable, deliveryId: string, reason: string): Promise<void> {
  await db.query(CANCEL_DELIVERY, [deliveryId, reason]);
}

/** The connector's failure run, locked for the rest of the transaction (failed attempts only). */
export const LOCK_CONNECTOR_FAILURES = `SELECT enabled, consecutive_failures, failing_since, now() AS now
  FROM connectors WHERE id = $1::uuid FOR UPDATE`;

export interface ConnectorFailures {
  enabled: boolean;
  consecutiveFailures: number;
  failingSince: Date | null;
  now: Date;
}

export async function lockConnectorFailures(db: Queryable, connectorId: string): Promise<ConnectorFailures | null> {
  const { rows } = await db.query<{ enabled: boolean; consecutive_failures: number; failing_since: Date | null; now: Date }>(
    LOCK_CONNECTOR_FAILURES,
    [connectorId],
  );
  const row = rows[0];
  return row ? { enabled: row.enabled, consecutiveFailures: row.consecutive_failures, failingSince: row.failing_since, now: row.now } : null;
}

/** A failed attempt extends the failure run; $5 turns the connector off (with $6 as the reason). */
export const UPDATE_CONNECTOR_FAILURE = `UPDATE connectors
   SET consecutive_failures = $2::int, failing_since = $3::timestamptz, last_error = $4::text, last_failure_at = now(), updated_at = now(),
       enabled = enabled AND NOT $5::boolean,
       disabled_at = CASE WHEN $5::boolean THEN now() ELSE disabled_at END,
       disabled_reason = CASE WHEN $5::boolean THEN $6::text ELSE disabled_reason END
 WHERE id = $1::uuid`;

export async function updateConnectorFailure(
  db: Queryable,
  connectorId: string,
  run: { consecutiveFailures: number; failingSince: Date; lastError: string | null; disableReason: string | null },
): Promise<void> {
  await db.query(UPDATE_CONNECTOR_FAILURE, [
    connectorId,
    run.consecutiveFailures,
    run.failingSince,
    run.lastError,
    run.disableReason !== null,
    run.disableReason,
  ]);
}

/**
 * When a connector is turned off, its other pending deliveries end as cancelled. Rows another
 * transaction holds (an attempt being recorded) are skipped: their runs see the connector off.
 */
export const CANCEL_PENDING_DELIVERIES = `UPDATE connector_deliveries
   SET status = 'cancelled', next_attempt_at = NULL, finished_at = now(), updated_at = now(),
       last_error = CASE WHEN attempts = 0 THEN $3::text ELSE last_error END
 WHERE id IN (SELECT id FROM connector_deliveries WHERE connector_id = $1::uuid AND status = 'pending' AND id <> $2::uuid
              FOR UPDATE SKIP LOCKED)`;

export async function cancelPendingDeliveries(db: Queryable, connectorId: string, exceptId: string, reason: string): Promise<void> {
  await db.query(CANCEL_PENDING_DELIVERIES, [connectorId, exceptId, reason]);
}

/** A test message's delivery row (no event), before its one attempt. */
export const INSERT_TEST_DELIVERY = `INSERT INTO connector_deliveries (id, connector_id, event_id, status, created_at, updated_at)
  VALUES (gen_random_uuid(), $1::uuid, NULL, 'pending', now(), now()) RETURNING id, created_at`;

export async function insertTestDelivery(db: Queryable, connectorId: string): Promise<{ id: string; createdAt: Date }> {
  const { rows } = await db.query<{ id: string; created_at: Date }>(INSERT_TEST_DELIVERY, [connectorId]);
  const row = rows[0]!;
  return { id: row.id, createdAt: row.created_at };
}
