import type pg from "pg";
import type { StoredEvent } from "./envelope";
import type { ConnectorTarget } from "./send";

/**
 * The delivery side's SQL (hand-written: this is the hot path of every delivery, two statements for
 * a successful attempt: LOAD_DELIVERY, then RECORD_SUCCESS). Locks are always taken connector row
 * first, then delivery rows, like the connectors API does, so concurrent deliveries, disables and
 * replays cannot deadlock. A success of a connector without a failure run (the common case) takes
 * no connector lock at all: RECORD_SUCCESS touches the delivery alone (so the deliveries of one
 * connector do not serialise on its row), and `last_success_at` is refreshed at most every few
 * seconds by TOUCH_CONNECTOR_SUCCESS, a single-row autocommit statement of its own (never a
 * connector lock while a delivery row is held). The first success after failures and every failure
 * go through RECORD_ATTEMPT under the connector's row lock (the failure run is reset or grown).
 * First attempts load and record successes in batches (batched.ts: LOAD_DELIVERIES, and
 * RECORD_SUCCESSES, the multi-row RECORD_SUCCESS).
 */
type Queryable = Pick<pg.PoolClient, "query">;

export type DeliveryStatus = "pending" | "succeeded" | "failed" | "cancelled";

/** A delivery with its connector, its event and (when already recorded) attempt $2. */
export const LOAD_DELIVERY = `SELECT d.status::text AS status, d.attempts, d.next_attempt_at, d.last_status_code, d.last_error,
       c.id AS connector_id, c.project_id, c.type::text AS connector_type, c.name, c.url, c.recipients, c.event_types, c.secret,
       c.previous_secret, c.previous_secret_expires_at, c.enabled, c.consecutive_failures, c.failing_since, c.last_success_at,
       e.id AS event_id, e.type AS event_type, e.severity::text AS severity, e.title, e.description, e.asset_id, e.asset, e.facts,
       e.created_at AS event_created_at,
       a.id IS NOT NULL AS recorded, a.status_code AS recorded_status_code, a.error AS recorded_error
  FROM connector_deliveries d
  JOIN connectors c ON c.id = d.connector_id
  LEFT JOIN events e ON e.id = d.event_id
  LEFT JOIN connector_delivery_attempts a ON a.delivery_id = d.id AND a.attempt = $2
 WHERE d.id = $1`;

interface LoadRow {
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  connector_id: string;
  project_id: string;
  connector_type: ConnectorTarget["type"];
  name: string;
  url: string | null;
  recipients: string[];
  event_types: string[];
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  enabled: boolean;
  consecutive_failures: number;
  failing_since: Date | null;
  last_success_at: Date | null;
  event_id: string | null;
  event_type: string | null;
  severity: string | null;
  title: string | null;
  description: string | null;
  asset_id: string | null;
  asset: unknown;
  facts: unknown;
  event_created_at: Date | null;
  recorded: boolean;
  recorded_status_code: number | null;
  recorded_error: string | null;
}

export interface LoadedDelivery {
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  connector: ConnectorTarget & { enabled: boolean; eventTypes: string[] };
  /** The connector's failure run and last success as loaded (not locked: a hint for recording). */
  connectorHealth: { failing: boolean; lastSuccessAt: Date | null };
  event: StoredEvent | null;
  /** Attempt $2 as recorded, when it was. */
  recordedAttempt: { statusCode: number | null; error: string | null } | null;
}

export async function loadDelivery(db: Queryable, deliveryId: string, attempt: number): Promise<LoadedDelivery | null> {
  const { rows } = await db.query<LoadRow>({ name: "sieve-delivery-load", text: LOAD_DELIVERY, values: [deliveryId, attempt] });
  const row = rows[0];
  return row ? loadedDelivery(row) : null;
}

/** LOAD_DELIVERY for several deliveries at once (attempt $2 of each), with each row's delivery id. */
export const LOAD_DELIVERIES = LOAD_DELIVERY.replace("SELECT d.status::text", "SELECT d.id, d.status::text").replace(
  "WHERE d.id = $1",
  "WHERE d.id = ANY ($1::uuid[])",
);

export async function loadDeliveries(db: Queryable, deliveryIds: readonly string[], attempt: number): Promise<Map<string, LoadedDelivery>> {
  const { rows } = await db.query<LoadRow & { id: string }>({
    name: "sieve-delivery-load-many",
    text: LOAD_DELIVERIES,
    values: [deliveryIds, attempt],
  });
  return new Map(rows.map((row) => [row.id, loadedDelivery(row)]));
}

function loadedDelivery(row: LoadRow): LoadedDelivery {
  return {
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    connector: {
      id: row.connector_id,
      projectId: row.project_id,
      type: row.connector_type,
      name: row.name,
      url: row.url,
      recipients: row.recipients,
      secret: row.secret,
      previousSecret: row.previous_secret,
      previousSecretExpiresAt: row.previous_secret_expires_at,
      enabled: row.enabled,
      eventTypes: row.event_types,
    },
    connectorHealth: { failing: row.consecutive_failures > 0 || row.failing_since !== null, lastSuccessAt: row.last_success_at },
    event:
      row.event_id === null
        ? null
        : {
            id: row.event_id,
            projectId: row.project_id,
            type: row.event_type as string,
            severity: row.severity as string,
            title: row.title as string,
            description: row.description,
            assetId: row.asset_id,
            asset: row.asset,
            facts: row.facts,
            createdAt: row.event_created_at as Date,
          },
    recordedAttempt: row.recorded ? { statusCode: row.recorded_status_code, error: row.recorded_error } : null,
  };
}

/**
 * Records attempt $2 and the delivery's new state in one statement, under the connector's row lock.
 * $8 is the delivery's new status; a delivery cancelled meanwhile (its connector was turned off while
 * the request was in flight) stays cancelled unless this attempt succeeded. With $11 (a successful
 * attempt of an event delivery) the connector's failure run is reset. Returns no row when attempt
 * $2 was already recorded (or the delivery is gone): nothing is changed then.
 */
export const RECORD_ATTEMPT = `WITH locked AS (SELECT id FROM connectors WHERE id = $10::uuid FOR UPDATE),
attempt AS (
  INSERT INTO connector_delivery_attempts (id, delivery_id, attempt, started_at, latency_ms, status_code, error, response_excerpt)
  SELECT gen_random_uuid(), $1::uuid, $2::int, $3::timestamptz, $4::int, $5::int, $6::text, $7::text FROM locked
  ON CONFLICT (delivery_id, attempt) DO NOTHING
  RETURNING delivery_id),
delivery AS (
  UPDATE connector_deliveries d
     SET status = CASE WHEN d.status = 'cancelled' AND $8::delivery_status <> 'succeeded' THEN d.status ELSE $8::delivery_status END,
         attempts = GREATEST(d.attempts, $2::int),
         last_status_code = $5::int,
         last_error = $6::text,
         next_attempt_at = CASE WHEN $8::delivery_status = 'pending' AND d.status <> 'cancelled'
                                THEN now() + make_interval(secs => $9::float8 / 1000) END,
         finished_at = CASE WHEN $8::delivery_status = 'pending' AND d.status <> 'cancelled' THEN NULL
                            ELSE coalesce(d.finished_at, now()) END,
         updated_at = now()
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
  startedAt: Date;
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
export async function recordAttempt(db: Queryable, r: AttemptRecord): Promise<{ status: DeliveryStatus; nextAttemptAt: Date | null } | null> {
  const { rows } = await db.query<{ status: DeliveryStatus; next_attempt_at: Date | null }>({
    name: "sieve-delivery-record-attempt",
    text: RECORD_ATTEMPT,
    values: [
      r.deliveryId,
      r.attempt,
      r.startedAt,
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
 * RECORD_ATTEMPT without the connector: records a successful attempt $2 and the delivery's new
 * state ($8, 'succeeded') while holding only the delivery's row, for a connector whose loaded state
 * shows no failure run. The same rules otherwise: a delivery cancelled meanwhile stays cancelled
 * unless this attempt succeeded; no row (and nothing changed) when attempt $2 was already recorded
 * or the delivery is gone. `failing` reports a failure run another attempt started meanwhile (read,
 * not locked), which TOUCH_CONNECTOR_SUCCESS then resets.
 */
export const RECORD_SUCCESS = `WITH attempt AS (
  INSERT INTO connector_delivery_attempts (id, delivery_id, attempt, started_at, latency_ms, status_code, error, response_excerpt)
  SELECT gen_random_uuid(), d.id, $2::int, $3::timestamptz, $4::int, $5::int, $6::text, $7::text
    FROM connector_deliveries d WHERE d.id = $1::uuid
  ON CONFLICT (delivery_id, attempt) DO NOTHING
  RETURNING delivery_id),
delivery AS (
  UPDATE connector_deliveries d
     SET status = CASE WHEN d.status = 'cancelled' AND $8::delivery_status <> 'succeeded' THEN d.status ELSE $8::delivery_status END,
         attempts = GREATEST(d.attempts, $2::int),
         last_status_code = $5::int,
         last_error = $6::text,
         next_attempt_at = CASE WHEN $8::delivery_status = 'pending' AND d.status <> 'cancelled'
                                THEN now() + make_interval(secs => $9::float8 / 1000) END,
         finished_at = CASE WHEN $8::delivery_status = 'pending' AND d.status <> 'cancelled' THEN NULL
                            ELSE coalesce(d.finished_at, now()) END,
         updated_at = now()
    FROM attempt WHERE d.id = attempt.delivery_id
  RETURNING d.status::text AS status, d.next_attempt_at, d.connector_id)
SELECT delivery.status, delivery.next_attempt_at,
       coalesce(c.consecutive_failures > 0 OR c.failing_since IS NOT NULL, false) AS failing
  FROM delivery LEFT JOIN connectors c ON c.id = delivery.connector_id`;

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

export type SuccessRecord = Omit<AttemptRecord, "status" | "retryDelayMs" | "resetConnector">;

/**
 * A success of a connector without a failure run (see RECORD_SUCCESS), then its mark on the
 * connector when due. Null when the attempt was already recorded or the delivery is gone.
 */
export async function recordSuccess(
  db: Queryable,
  r: SuccessRecord,
  lastSuccessAt: Date | null,
): Promise<{ status: DeliveryStatus; nextAttemptAt: Date | null } | null> {
  let row: { status: DeliveryStatus; next_attempt_at: Date | null; failing: boolean } | undefined;
  try {
    const { rows } = await db.query<{ status: DeliveryStatus; next_attempt_at: Date | null; failing: boolean }>({
      name: "sieve-delivery-record-success",
      text: RECORD_SUCCESS,
      values: [r.deliveryId, r.attempt, r.startedAt, r.latencyMs, r.statusCode, r.error, r.responseExcerpt, "succeeded", 0],
    });
    row = rows[0];
  } catch (error) {
    // 23503: the delivery was deleted (with its connector) between the read and the insert.
    if ((error as { code?: string }).code === "23503") return null;
    throw error;
  }
  if (!row) return null;
  const due = lastSuccessAt === null || Date.now() - lastSuccessAt.getTime() >= LAST_SUCCESS_REFRESH_MS;
  if (row.failing || due) {
    await db.query({ name: "sieve-delivery-touch-connector", text: TOUCH_CONNECTOR_SUCCESS, values: [r.connectorId, row.failing] });
  }
  return { status: row.status, nextAttemptAt: row.next_attempt_at };
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
