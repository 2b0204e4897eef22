import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";
import { processSingleton } from "@/lib/core/singleton";
import { sqlPool } from "@/lib/db/client";
import { listen, type Listener } from "@/lib/db/listen";
import { withTransaction } from "@/lib/db/transaction";
import { kickOutbox } from "@/lib/jobs/outbox";
import { queueUnattemptedDeliveries } from "./delivery-jobs";
import { connectorStamp, quietSince, watchConnectorChanges } from "./delivery/connector-changes";
import { readAheadRoom, startFirstAttempts, type DispatchedDelivery } from "./delivery/first-attempts";
import { FIRST_DELIVERY_ID, INSERT_DISPATCH_PASS, RECEIVING_CONNECTORS, trackPass, type UnsavedDelivery } from "./delivery/passes";
import {
  CONNECTOR_COLUMNS,
  EVENT_COLUMNS,
  loadedConnector,
  storedEvent,
  type ConnectorRow,
  type EventRow,
  type LoadedDelivery,
} from "./delivery/load";

/**
 * The connector dispatcher: turns committed events into deliveries, once each. It reads events in
 * the feed's order, (txid, seq) below the snapshot horizon (lib/events/feed.ts), so an event whose
 * transaction commits late is never skipped; the position is a row in the database, advanced in the
 * same transaction that notes the pass (its range of events), so a crash redoes a pass or none of
 * it, never half. One process dispatches at a time (the cursor row is locked; others skip). After
 * commit the deliveries' first attempts start in this process (delivery/first-attempts.ts), with
 * each delivery as the pass read it (connector and event included: no read per attempt); a
 * delivery's row is written once, after its first attempt (delivery/passes.ts). What needs retries
 * goes to the job runner, and the sweep (every poll) writes and queues any delivery a crash left
 * unstored or unattempted.
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

interface EventPosition {
  id: string;
  txid: string;
  seq: string;
}

interface PassResult {
  events: number;
  deliveries: DispatchedDelivery[];
  /** Whether later events exist that were not yet visible (their transactions were running). */
  waiting: boolean;
}

/** The position, locked; no row when another process holds it (that process is dispatching). */
export const LOCK_DISPATCH_CURSOR = `SELECT txid, seq, (pg_snapshot_xmin(pg_current_snapshot())::text) AS horizon
  FROM connector_dispatch_cursor WHERE id = 1 FOR UPDATE SKIP LOCKED`;

// node-postgres returns bigint as a string: no cast needed (a `txid::text` output column would make
// ORDER BY txid sort text).
export const SELECT_DISPATCHABLE_EVENTS = `SELECT id, txid, seq FROM events
  WHERE txid < $1::bigint AND (txid, seq) > ($2::bigint, $3::bigint)
  ORDER BY txid, seq LIMIT $4`;

/** Whether events exist that running transactions still hide (their commit will need a pass). */
export const SELECT_EVENTS_BEYOND_HORIZON = `SELECT EXISTS (SELECT 1 FROM events WHERE txid >= $1::bigint) AS waiting`;

/**
 * The deliveries of events $1, each with its event (load.ts), in the feed's order; the connectors
 * are read once each (SELECT_DISPATCH_CONNECTORS), not once per delivery. Nothing is written: a
 * delivery's row is written after its first attempt (delivery/passes.ts).
 */
export const SELECT_EVENT_DELIVERIES = `SELECT ${FIRST_DELIVERY_ID} AS id, c.id AS connector_id, ${EVENT_COLUMNS}
  FROM events e
  JOIN ${RECEIVING_CONNECTORS}
 WHERE e.id = ANY ($1::uuid[])
 ORDER BY e.txid, e.seq, c.created_at`;

export const SELECT_DISPATCH_CONNECTORS = `SELECT ${CONNECTOR_COLUMNS} FROM connectors c WHERE c.id = ANY ($1::uuid[])`;

export const ADVANCE_DISPATCH_CURSOR = `UPDATE connector_dispatch_cursor SET txid = $1::bigint, seq = $2::bigint, updated_at = now() WHERE id = 1`;

/** `stamp`: connectorStamp() taken before the transaction began (connector-changes.ts). */
async function dispatchBatch(client: pg.PoolClient, stamp: number | null, limit: number): Promise<PassResult> {
  const { rows: cursorRows } = await client.query<{ txid: string; seq: string; horizon: string }>(LOCK_DISPATCH_CURSOR);
  const cursor = cursorRows[0];
  if (!cursor) return { events: 0, deliveries: [], waiting: false };
  const { rows: events } = await client.query<EventPosition>(SELECT_DISPATCHABLE_EVENTS, [cursor.horizon, cursor.txid, cursor.seq, limit]);
  const last = events.at(-1);
  if (!last) {
    const { rows } = await client.query<{ waiting: boolean }>(SELECT_EVENTS_BEYOND_HORIZON, [cursor.horizon]);
    return { events: 0, deliveries: [], waiting: rows[0]?.waiting ?? false };
  }
  const { rows } = await client.query<DispatchedRow>({ name: "sieve-dispatch-deliveries", text: SELECT_EVENT_DELIVERIES, values: [events.map((e) => e.id)] });
  let deliveries: DispatchedDelivery[] = [];
  if (rows.length > 0) {
    const { rows: passRows } = await client.query<{ id: string; created_at: Date }>(INSERT_DISPATCH_PASS, [cursor.txid, cursor.seq, last.txid, last.seq]);
    const pass = passRows[0]!;
    const connectors = await dispatchConnectors(client, rows);
    deliveries = rows.map((row) => dispatched(row, connectors.get(row.connector_id), pass.id, pass.created_at.getTime(), stamp));
  }
  await client.query(ADVANCE_DISPATCH_CURSOR, [last.txid, last.seq]);
  return { events: events.length, deliveries, waiting: events.length === limit };
}

/** A delivery of a pass, not stored yet; without its connector's read (not expected) the attempt stores and reads it. */
function dispatched(
  row: DispatchedRow,
  read: Pick<LoadedDelivery, "connector" | "connectorHealth"> | undefined,
  passId: string,
  createdMs: number,
  stamp: number | null,
): DispatchedDelivery {
  const unsaved: UnsavedDelivery = { deliveryId: row.id, connectorId: row.connector_id, eventId: row.event_id as string, createdMs, passId, stored: false };
  const loaded = read ? newDelivery(read, storedEvent(row, read.connector.projectId), unsaved) : null;
  return { deliveryId: row.id, connectorId: row.connector_id, loaded, stamp, unsaved };
}

interface DispatchedRow extends EventRow {
  id: string;
  connector_id: string;
}

/** A new delivery (one object literal: every delivery of a pass has the same shape). */
function newDelivery(read: Pick<LoadedDelivery, "connector" | "connectorHealth">, event: LoadedDelivery["event"], unsaved: UnsavedDelivery): LoadedDelivery {
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

/** The connectors of these deliveries, each read once (in the transaction that dispatched them). */
async function dispatchConnectors(client: pg.PoolClient, rows: readonly DispatchedRow[]) {
  const ids = [...new Set(rows.map((row) => row.connector_id))];
  const connectors = new Map<string, ReturnType<typeof loadedConnector>>();
  if (ids.length === 0) return connectors;
  const { rows: connectorRows } = await client.query<ConnectorRow>(SELECT_DISPATCH_CONNECTORS, [ids]);
  for (const row of connectorRows) connectors.set(row.connector_id, loadedConnector(row));
  return connectors;
}

/**
 * Dispatches everything visible now and starts the first attempts; returns the number of
 * deliveries created. Between passes it waits while the lanes have no room (`room`, readAheadRoom),
 * so a burst is read as it is delivered rather than all at once. `attempt` and `room` are
 * replaceable for tests.
 */
export async function dispatchEvents(
  attempt: (deliveries: readonly DispatchedDelivery[]) => void = startFirstAttempts,
  room: () => boolean = readAheadRoom,
): Promise<{ deliveries: number; waiting: boolean }> {
  let total = 0;
  for (let limit = FIRST_BATCH; ; limit = Math.min(DISPATCH_BATCH, limit * 2)) {
    while (!room()) await sleep(ROOM_POLL_MS);
    const stamp = connectorStamp();
    const pass = await withTransaction(sqlPool(), (client) => dispatchBatch(client, stamp, limit));
    total += pass.deliveries.length;
    if (pass.deliveries.length > 0) {
      trackPass(pass.deliveries[0]!.unsaved.passId, pass.deliveries.length);
      attempt(pass.deliveries);
    }
    if (pass.events < limit) return { deliveries: total, waiting: pass.waiting };
  }
}

/** Hands deliveries a crash left unattempted to the job runner. */
export async function sweepUnattemptedDeliveries(): Promise<number> {
  const queued = await withTransaction(sqlPool(), queueUnattemptedDeliveries);
  if (queued > 0) await kickOutbox();
  return queued;
}

/** Whether any connector could receive deliveries (the dispatcher's idle check). */
export const SELECT_ANY_ENABLED_CONNECTOR = `SELECT EXISTS (SELECT 1 FROM connectors WHERE enabled) AS any`;

interface DispatcherState {
  running: boolean;
  again: boolean;
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
  if (forEvents && s.idleSince !== undefined && quietSince(s.idleSince)) return;
  if (s.running) {
    s.again = true;
    return;
  }
  s.running = true;
  clearTimeout(s.timer);
  void (async () => {
    let soon = false;
    try {
      do {
        s.again = false;
        const stamp = connectorStamp();
        const pass = await dispatchEvents();
        soon = pass.waiting;
        s.idleSince = pass.deliveries === 0 && !soon && stamp !== null && !(await anyConnectorEnabled()) ? stamp : undefined;
      } while (s.again);
    } catch (error) {
      console.error(`[sieve] connector dispatch failed, retrying: ${(error as Error).message}`);
      soon = true;
    } finally {
      s.running = false;
    }
    if (soon) {
      s.timer = setTimeout(wakeDispatcher, SOON_MS);
      s.timer.unref();
    }
  })();
}

async function anyConnectorEnabled(): Promise<boolean> {
  const { rows } = await sqlPool().query<{ any: boolean }>(SELECT_ANY_ENABLED_CONNECTOR);
  return rows[0]?.any ?? true;
}

/** Starts the dispatcher: woken by each commit of events (NOTIFY), and by a poll as a safety net. */
export function startConnectorDispatcher(): () => Promise<void> {
  const s = state();
  s.listener ??= listen("sieve_events", () => wakeDispatcher(true), { onDown: () => wakeDispatcher() });
  const stopWatching = watchConnectorChanges();
  s.poll ??= setInterval(() => {
    wakeDispatcher();
    sweepUnattemptedDeliveries().catch((error: Error) => console.error(`[sieve] connector delivery sweep failed: ${error.message}`));
  }, POLL_MS);
  s.poll.unref();
  wakeDispatcher();
  return async () => {
    clearInterval(s.poll);
    clearTimeout(s.timer);
    s.poll = undefined;
    await s.listener?.close();
    s.listener = undefined;
    await stopWatching();
  };
}
