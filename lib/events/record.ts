import { placeholders, prismaRunner, type SqlRunner } from "@/lib/db/sql";
import type { Prisma } from "@/lib/db/generated/client";
import { EVENT_TYPES, type EventAssetSnapshot, type EventFact, type EventType } from "@/lib/events/catalogue";

/**
 * The one writer of the `events` table. Events are recorded inside the caller's transaction, so an
 * event exists exactly when its change does; their `txid` column (set by the database) is what lets
 * the feed order them safely, and their `seq` follows the given order.
 */
export interface NewEvent {
  projectId: string;
  type: EventType;
  title: string;
  description?: string | null;
  userId?: string | null;
  asset?: EventAssetSnapshot | null;
  facts: EventFact[];
}

const CASTS = ["uuid[]", "uuid[]", "text[]", "text[]", "text[]", "text[]", "uuid[]", "jsonb[]", "jsonb[]", "boolean[]"];

/**
 * The INSERT of events with placeholders from `$first`, for a statement that composes it (the
 * upload hot path writes its asset, event and job in one statement); `eventValues` gives the values.
 */
export function eventInsertSql(first: number): string {
  return `INSERT INTO events (id, project_id, user_id, type, severity, title, description, asset_id, asset, facts, notify, created_at, updated_at)
     SELECT gen_random_uuid(), e.project_id, e.user_id, e.type, e.severity::event_severity, e.title, e.description, e.asset_id, e.asset,
            e.facts, e.notify, now(), now()
       FROM unnest(${placeholders(first, CASTS).join(", ")})
            WITH ORDINALITY AS e(project_id, user_id, type, severity, title, description, asset_id, asset, facts, notify, n)
      ORDER BY e.n`;
}

export function eventValues(events: readonly NewEvent[]): unknown[] {
  return [
    events.map((e) => e.projectId),
    events.map((e) => e.userId ?? null),
    events.map((e) => e.type),
    events.map((e) => EVENT_TYPES[e.type].severity),
    events.map((e) => e.title),
    events.map((e) => e.description ?? null),
    events.map((e) => e.asset?.id ?? null),
    events.map((e) => (e.asset ? JSON.stringify(e.asset) : null)),
    events.map((e) => JSON.stringify(e.facts)),
    events.map((e) => EVENT_TYPES[e.type].notify),
  ];
}

/** Records events on a pg client or pool (the SQL paths), in one statement. */
export async function recordEvents(runner: SqlRunner, events: readonly NewEvent[]): Promise<void> {
  if (events.length > 0) await runner.query(eventInsertSql(1), eventValues(events));
}

/** The same inside a Prisma transaction. */
export function recordEvent(tx: Prisma.TransactionClient, event: NewEvent): Promise<void> {
  return recordEvents(prismaRunner(tx), [event]);
}
