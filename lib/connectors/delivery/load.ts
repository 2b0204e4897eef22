import type pg from "pg";
import type { StoredEvent } from "./envelope";
import type { UnsavedDelivery } from "./passes";
import type { ConnectorTarget } from "./send";
import type { DeliveryStatus } from "./store";

/** How a delivery is read for an attempt: one statement, by id or for a batch. */
type Queryable = Pick<pg.PoolClient, "query">;

/**
 * What a delivery attempt needs, as select lists over a delivery `d`, its connector `c` and its
 * event `e` (LEFT JOINed: a test message has none): LOAD_DELIVERY and LOAD_DELIVERIES read all of
 * DELIVERY_COLUMNS into LoadRow; the dispatcher (lib/connectors/dispatch.ts), whose deliveries are
 * new, reads EVENT_COLUMNS per delivery and CONNECTOR_COLUMNS once per connector.
 */
export const CONNECTOR_COLUMNS = `c.id AS connector_id, c.project_id, c.type::text AS connector_type, c.name, c.url, c.recipients,
       c.event_types, c.secret, c.previous_secret, c.previous_secret_expires_at, c.enabled, c.consecutive_failures,
       c.failing_since, c.last_success_at`;
/**
 * The event's columns a delivery reads, each as [expression over `e`, output name]. The asset and
 * facts come as their stored JSON text (facts that are not a list as an empty one): storedEvent puts
 * them into the body as they are, rather than parsing them and serialising them again.
 */
const EVENT_FIELDS = [
  ["e.id", "event_id"],
  ["e.type", "event_type"],
  ["e.severity::text", "severity"],
  ["e.title", "title"],
  ["e.description", "description"],
  ["e.asset_id", "asset_id"],
  ["e.asset::text", "asset_json"],
  ["CASE WHEN jsonb_typeof(e.facts) = 'array' THEN e.facts::text ELSE '[]' END", "facts_json"],
  ["(extract(epoch FROM e.created_at) * 1000)::float8", "event_created_ms"],
] as const;
export const EVENT_COLUMNS = EVENT_FIELDS.map(([expression, name]) => `${expression} AS ${name}`).join(", ");
/** EVENT_COLUMNS' output names, to pass them on from a subquery. */
export const EVENT_ROW_COLUMNS = EVENT_FIELDS.map(([, name]) => name).join(", ");
export const DELIVERY_COLUMNS = `d.id, d.status::text AS status, d.attempts, d.next_attempt_at, d.last_status_code, d.last_error,
       ${CONNECTOR_COLUMNS},
       ${EVENT_COLUMNS}`;

/** Deliveries with their connector, their event and (when already recorded) attempt $2 (attempt 1 may be in the delivery's row). */
const loadStatement = (where: string) => `SELECT ${DELIVERY_COLUMNS},
       (a.id IS NOT NULL OR ($2 = 1 AND d.first_started_at IS NOT NULL)) AS recorded,
       CASE WHEN a.id IS NOT NULL THEN a.status_code ELSE d.last_status_code END AS recorded_status_code, a.error AS recorded_error
  FROM connector_deliveries d
  JOIN connectors c ON c.id = d.connector_id
  LEFT JOIN events e ON e.id = d.event_id
  LEFT JOIN connector_delivery_attempts a ON a.delivery_id = d.id AND a.attempt = $2
 WHERE ${where}`;

export const LOAD_DELIVERY = loadStatement("d.id = $1");
export const LOAD_DELIVERIES = loadStatement("d.id = ANY ($1::uuid[])");

export interface ConnectorRow {
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
}

export interface EventRow {
  event_id: string | null;
  event_type: string | null;
  severity: string | null;
  title: string | null;
  description: string | null;
  asset_id: string | null;
  /** JSON text (null when the event has no asset). */
  asset_json: string | null;
  /** JSON text of a list. */
  facts_json: string | null;
  /** ms since the epoch (no Date to parse per delivery). */
  event_created_ms: number | null;
}

export interface LoadRow extends ConnectorRow, EventRow {
  id: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
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
  /** A dispatched delivery's, while its row may not be written yet (passes.ts); absent when read from its row. */
  unsaved?: UnsavedDelivery;
}

export async function loadDelivery(db: Queryable, deliveryId: string, attempt: number): Promise<LoadedDelivery | null> {
  const { rows } = await db.query<LoadRow>({ name: "sieve-delivery-load", text: LOAD_DELIVERY, values: [deliveryId, attempt] });
  const row = rows[0];
  return row ? loadedDelivery(row) : null;
}

export async function loadDeliveries(db: Queryable, deliveryIds: readonly string[], attempt: number): Promise<Map<string, LoadedDelivery>> {
  const { rows } = await db.query<LoadRow>({
    name: "sieve-delivery-load-many",
    text: LOAD_DELIVERIES,
    values: [deliveryIds, attempt],
  });
  return new Map(rows.map((row) => [row.id, loadedDelivery(row)]));
}

/** A row of DELIVERY_COLUMNS (plus the recorded attempt's, when selected) as the attempt uses it. */
export function loadedDelivery(row: LoadRow): LoadedDelivery {
  const { connector, connectorHealth } = loadedConnector(row);
  return {
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    connector,
    connectorHealth,
    event: storedEvent(row, row.project_id),
    recordedAttempt: row.recorded ? { statusCode: row.recorded_status_code, error: row.recorded_error } : null,
  };
}

/**
 * A delivery never attempted, as its first attempt reads it: pending, with its connector as read and
 * its event; `unsaved` while its row is not written yet (a dispatched delivery: passes.ts).
 */
export function pendingDelivery(
  read: Pick<LoadedDelivery, "connector" | "connectorHealth">,
  event: StoredEvent | null,
  unsaved?: UnsavedDelivery,
): LoadedDelivery {
  return {
    status: "pending",
    attempts: 0,
    nextAttemptAt: null,
    lastStatusCode: null,
    lastError: null,
    connector: read.connector,
    connectorHealth: read.connectorHealth,
    event,
    recordedAttempt: null,
    unsaved,
  };
}

/** The connector of CONNECTOR_COLUMNS as an attempt uses it (deliveries of one connector may share it). */
export function loadedConnector(row: ConnectorRow): Pick<LoadedDelivery, "connector" | "connectorHealth"> {
  return {
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
  };
}

/**
 * The event of EVENT_COLUMNS with its envelope's JSON (WebhookEnvelope, envelope.ts), null for a
 * test message's delivery; events belong to their connector's project. Written out, key by key, as
 * JSON.stringify would write the envelope, but with the asset and facts in PostgreSQL's text of
 * them (a space after each `:` and `,`): this runs for every delivery
 * (tests/unit/event-envelope.test.ts holds the two alike). Joined, not concatenated: `+` makes a
 * rope (a string object per piece joined) that lives, with every piece, while the delivery waits
 * for its turn; join makes one flat string. In a heap snapshot mid-burst the objects the burst
 * kept alive fell from ~61 000 to ~13 000, and the server's garbage collection per burst by a
 * third (bench/events.ts, rounds of 6000 events).
 */
export function storedEvent(row: EventRow, projectId: string): StoredEvent | null {
  if (row.event_id === null) return null;
  const type = row.event_type as string;
  const description = row.description === null ? "null" : JSON.stringify(row.description);
  const assetId = row.asset_id === null ? "null" : `"${row.asset_id}"`;
  const json = [
    '{"id":"', row.event_id, '","type":', JSON.stringify(type), ',"createdAt":', String(row.event_created_ms), ',"projectId":"', projectId,
    '","data":{"severity":"', row.severity === "high" ? "high" : "low", '","title":', JSON.stringify(row.title), ',"description":', description,
    ',"assetId":', assetId, ',"asset":', row.asset_json ?? "null", ',"facts":', row.facts_json ?? "[]", "}}",
  ].join("");
  return { id: row.event_id, type, json };
}
