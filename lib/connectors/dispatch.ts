import { setTimeout as sleep } from "node:timers/promises";
import { processSingleton } from "@/lib/core/singleton";
import { sqlPool } from "@/lib/db/client";
import { listen, type Listener } from "@/lib/db/listen";
import { withTransaction } from "@/lib/db/transaction";
import { kickOutbox } from "@/lib/jobs/outbox";
import { queueLostDeliveries } from "./delivery-jobs";
import { connectorStamp, quietSince, watchConnectorChanges } from "./delivery/connector-changes";
import { drainFirstAttempts, readAheadRoom, resumeFirstAttempts, startFirstAttempts, type DispatchedDelivery } from "./delivery/first-attempts";
import { firstDeliveryId, RECEIVING_CONNECTORS, trackPass, type DispatchPass } from "./delivery/passes";
import { dispatchConnectors, type StampedConnector } from "./delivery/dispatch-connectors";
import { EVENT_COLUMNS, EVENT_ROW_COLUMNS, storedEvent, type EventRow } from "./delivery/load";

/**
 * The connector dispatcher: turns committed events into deliveries, once each. It reads events in
 * the feed's order, (txid, seq) below the snapshot horizon (lib/events/feed.ts), so an event whose
 * transaction commits late is never skipped; the position is a row in the database, advanced by the
 * statement that notes the pass (its range of events: DISPATCH_PASS), so a crash redoes a pass or
 * none of it, never half. One process dispatches at a time (the cursor row is locked; others skip).
 * After commit the deliveries' first attempts start in this process (delivery/first-attempts.ts),
 * each with its event as the pass read it and its connector as last read
 * (delivery/dispatch-connectors.ts): no read per attempt; a delivery's row is written once, after
 * its first attempt (delivery/passes.ts). What needs retries goes to the job runner, and the sweep
 * (every poll) writes and queues any delivery a crash left unstored or unattempted.
 * Connectors receive the events created after them, of the types they subscribe to (none = all).
 */
export const DISPATCH_BATCH = 500;
/**
 * The first pass of a dispatch reads fewer events, and each next pass twice as many up to DISPATCH_BATCH:
 * the first attempts of a burst start after a small insert, and the later passes are inserted
 * while those attempts run.
 */
const FIRST_BATCH = 100;
const POLL_MS = 5000;
/** When events of still-running transactions were seen, look again this soon. */
const SOON_MS = 25;
/** While the lanes have no room for more deliveries (readAheadRoom), look again this soon. */
const ROOM_POLL_MS = 5;

interface PassResult {
  events: number;
  deliveries: DispatchedDelivery[];
  /** Whether later events exist that were not yet visible (their transactions were running). */
  waiting: boolean;
}

/** The pass's figures (the `summary` CTE): on its first row only, so the driver parses no copy of them per delivery. */
const SUMMARY_COLUMNS = ["events", "waiting", "pass_id", "pass_created_ms"] as const;

/**
 * One pass, one statement (its own transaction): locks the position (no row when another process
 * holds it: that process is dispatching), reads up to $1 events after it below the snapshot horizon
 * in the feed's order (node-postgres returns bigint as a string: no text cast, which would sort as
 * text), turns them into deliveries (the receiving connectors of each), notes the pass (its range of
 * events) when there are deliveries, and moves the position past the last event. Nothing else is
 * written: a delivery's row is written after its first attempt (delivery/passes.ts). Answers one
 * row per delivery (its connector and event; dispatched() derives its id: passes.ts
 * firstDeliveryId), in the feed's order (then the connectors' creation), the first with the
 * pass's figures (null on the others); one row without a delivery when there is none. `waiting`:
 * no event was visible below the horizon, and some are above it, behind running transactions
 * (their commit will need a pass); the newest event's txid is one index lookup (an EXISTS over
 * txid >= horizon, planned without the horizon's value, scanned the table).
 */
export const DISPATCH_PASS = `WITH position AS (
  SELECT txid, seq, pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS horizon
    FROM connector_dispatch_cursor WHERE id = 1 FOR UPDATE SKIP LOCKED),
batch AS (
  SELECT e.* FROM position CROSS JOIN LATERAL (
    SELECT * FROM events
     WHERE txid < position.horizon AND (txid, seq) > (position.txid, position.seq)
     ORDER BY txid, seq LIMIT $1) e),
last AS (SELECT txid, seq FROM batch ORDER BY txid DESC, seq DESC LIMIT 1),
deliveries AS (
  SELECT c.id AS connector_id, ${EVENT_COLUMNS}, e.txid, e.seq, c.created_at AS connector_created_at
    FROM batch e
    JOIN ${RECEIVING_CONNECTORS}),
pass AS (
  INSERT INTO connector_dispatch_passes (from_txid, from_seq, to_txid, to_seq)
  SELECT position.txid, position.seq, last.txid, last.seq FROM position, last WHERE EXISTS (SELECT 1 FROM deliveries)
  RETURNING id, created_at),
advanced AS (
  UPDATE connector_dispatch_cursor SET txid = last.txid, seq = last.seq, updated_at = now() FROM last WHERE connector_dispatch_cursor.id = 1),
summary AS (
  SELECT b.events,
         coalesce(b.events = 0 AND (SELECT max(txid) FROM events) >= (SELECT horizon FROM position), false) AS waiting,
         pass.id AS pass_id, (extract(epoch FROM pass.created_at) * 1000)::float8 AS pass_created_ms
    FROM (SELECT count(*)::int AS events FROM batch) b LEFT JOIN pass ON true)
SELECT ${SUMMARY_COLUMNS.map((name) => `CASE WHEN d.n IS NULL OR d.n = 1 THEN summary.${name} END AS ${name}`).join(", ")},
       d.connector_id, ${EVENT_ROW_COLUMNS}
  FROM summary
  LEFT JOIN LATERAL (
    SELECT row_number() OVER (ORDER BY txid, seq, connector_created_at) AS n, connector_id, ${EVENT_ROW_COLUMNS}
      FROM deliveries ORDER BY txid, seq, connector_created_at) d ON true`;

interface PassRow extends EventRow {
  /** The pass's figures: null but on its first row (SUMMARY_COLUMNS). */
  events: number | null;
  waiting: boolean | null;
  pass_id: string | null;
  pass_created_ms: number | null;
  /** Null on the one row of a pass without deliveries. */
  connector_id: string | null;
}

/** A row of a pass with a delivery. */
type DeliveryRow = PassRow & { connector_id: string; event_id: string };

async function dispatchPass(limit: number): Promise<PassResult> {
  const { rows } = await sqlPool().query<PassRow>({ name: "sieve-dispatch-pass", text: DISPATCH_PASS, values: [limit] });
  const summary = rows.find((row) => row.events !== null); // the first row
  if (!summary) return { events: 0, deliveries: [], waiting: false };
  let deliveries: DispatchedDelivery[] = [];
  if (summary.connector_id !== null && summary.pass_id !== null) {
    const delivered = rows as DeliveryRow[];
    const connectors = await dispatchConnectors(new Set(delivered.map((row) => row.connector_id)));
    const pass: DispatchPass = { id: summary.pass_id, createdMs: summary.pass_created_ms as number };
    deliveries = delivered.map((row) => dispatched(row, connectors.get(row.connector_id), pass));
  }
  return { events: summary.events ?? 0, deliveries, waiting: summary.waiting ?? false };
}

/**
 * A delivery of a pass, not stored yet: one object (its own UnsavedDelivery, later its place in
 * its lane), which shares its pass and its connector with the pass's other deliveries; without its
 * connector (deleted since: not expected) the attempt stores and reads it.
 */
function dispatched(row: DeliveryRow, connector: StampedConnector | undefined, pass: DispatchPass): DispatchedDelivery {
  // The connector's own id string, shared by its deliveries (the row's copy goes with the row).
  const connectorId = connector?.read.connector.id ?? row.connector_id;
  return {
    deliveryId: firstDeliveryId(row.event_id, connectorId),
    connectorId,
    eventId: row.event_id,
    pass,
    stored: false,
    connector: connector ?? null,
    event: connector ? storedEvent(row, connector.read.connector.projectId) : null,
    since: 0,
  };
}

/**
 * Dispatches everything visible now and starts the first attempts; returns the number of
 * deliveries created. Between passes it waits while the lanes have no room (`room`, readAheadRoom),
 * so a burst is read as it is delivered rather than all at once; once `stopped` says so (the
 * dispatcher's stop) it starts no further pass. `attempt` and `room` are replaceable for tests.
 */
export async function dispatchEvents(
  attempt: (deliveries: readonly DispatchedDelivery[]) => void = startFirstAttempts,
  room: () => boolean = readAheadRoom,
  stopped: () => boolean = () => false,
): Promise<{ deliveries: number; waiting: boolean }> {
  let total = 0;
  for (let limit = FIRST_BATCH; ; limit = Math.min(DISPATCH_BATCH, limit * 2)) {
    while (!room() && !stopped()) await sleep(ROOM_POLL_MS);
    // Stopped: the events left are read after the next start.
    if (stopped()) return { deliveries: total, waiting: false };
    const pass = await dispatchPass(limit);
    total += pass.deliveries.length;
    if (pass.deliveries.length > 0) {
      trackPass(pass.deliveries[0]!.pass.id, pass.deliveries.length);
      attempt(pass.deliveries);
    }
    if (pass.events < limit) return { deliveries: total, waiting: pass.waiting };
  }
}

/** Hands deliveries a crash left without a job (unattempted, or a failed first attempt not handed off) to the job runner. */
export async function sweepLostDeliveries(): Promise<number> {
  const queued = await withTransaction(sqlPool(), queueLostDeliveries);
  if (queued > 0) await kickOutbox();
  return queued;
}

/** Whether any connector could receive deliveries (the dispatcher's idle check). */
export const SELECT_ANY_ENABLED_CONNECTOR = `SELECT EXISTS (SELECT 1 FROM connectors WHERE enabled) AS any`;

interface DispatcherState {
  running: boolean;
  again: boolean;
  /** Set by the stop function: no pass starts (startConnectorDispatcher clears it). */
  stopped?: boolean;
  /** The passes running now (wakeDispatcher's loop), and the sweep: the stop function waits for both. */
  passes?: Promise<void>;
  sweep?: Promise<unknown>;
  /**
   * The connector-changes stamp at which no connector was enabled: until a connector changes, new
   * events need no pass (it would only advance the position). The poll still runs one.
   */
  idleSince?: number;
  timer?: NodeJS.Timeout;
  listener?: Listener;
  poll?: NodeJS.Timeout;
}
const state = () => processSingleton<DispatcherState>("connectorDispatcher", () => ({ running: false, again: false }));

/**
 * Runs a dispatch pass now (coalescing concurrent wake-ups). A wake for new events is skipped while
 * no connector is enabled and none has changed since that was seen: skipping only delays the
 * position's advance to the next poll, and a connector's creation or enabling (its NOTIFY) ends it.
 */
export function wakeDispatcher(forEvents = false): void {
  const s = state();
  if (s.stopped) return;
  if (forEvents && s.idleSince !== undefined && quietSince(s.idleSince)) return;
  if (s.running) {
    s.again = true;
    return;
  }
  s.running = true;
  clearTimeout(s.timer);
  s.passes = (async () => {
    let soon = false;
    try {
      do {
        s.again = false;
        const stamp = connectorStamp();
        const pass = await dispatchEvents(startFirstAttempts, readAheadRoom, () => s.stopped === true);
        if (s.stopped) break;
        soon = pass.waiting;
        s.idleSince = pass.deliveries === 0 && !soon && stamp !== null && !(await anyConnectorEnabled()) ? stamp : undefined;
      } while (s.again);
    } catch (error) {
      console.error(`[sieve] connector dispatch failed, retrying: ${(error as Error).message}`);
      soon = true;
    } finally {
      s.running = false;
    }
    if (soon && !s.stopped) {
      s.timer = setTimeout(wakeDispatcher, SOON_MS);
      s.timer.unref();
    }
  })();
}

async function anyConnectorEnabled(): Promise<boolean> {
  const { rows } = await sqlPool().query<{ any: boolean }>(SELECT_ANY_ENABLED_CONNECTOR);
  return rows[0]?.any ?? true;
}

/**
 * How long a stop waits for the first attempts in flight to be recorded (drainFirstAttempts): an
 * endpoint that answers in time is not sent the same event again after the restart.
 */
const STOP_DRAIN_MS = 5_000;

/**
 * Starts the dispatcher: woken by each commit of events (NOTIFY), and by a poll as a safety net.
 * Its stop function ends both, waits for the pass and the sweep running then, and drains the
 * first attempts (bounded by STOP_DRAIN_MS), so the server's shutdown closes the database after them.
 */
export function startConnectorDispatcher(): () => Promise<void> {
  const s = state();
  s.stopped = false;
  resumeFirstAttempts();
  s.listener ??= listen("sieve_events", () => wakeDispatcher(true), { onDown: () => wakeDispatcher() });
  const stopWatching = watchConnectorChanges();
  s.poll ??= setInterval(() => {
    wakeDispatcher();
    s.sweep ??= sweepLostDeliveries()
      .catch((error: Error) => console.error(`[sieve] connector delivery sweep failed: ${error.message}`))
      .finally(() => (s.sweep = undefined));
  }, POLL_MS);
  s.poll.unref();
  wakeDispatcher();
  return async () => {
    s.stopped = true;
    clearInterval(s.poll);
    clearTimeout(s.timer);
    s.poll = undefined;
    await s.listener?.close();
    s.listener = undefined;
    await stopWatching();
    await Promise.allSettled([s.passes, s.sweep]);
    const unfinished = await drainFirstAttempts(STOP_DRAIN_MS);
    if (unfinished > 0) console.warn(`[sieve] ${unfinished} connector deliveries were still in flight at shutdown: the next start sends them again`);
  };
}
