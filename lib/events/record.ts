import type pg from "pg";
import type { Prisma } from "@/lib/db/generated/client";
import { EVENT_TYPES, type EventAssetSnapshot, type EventFact, type EventType } from "@/lib/events/catalogue";

type Tx = Prisma.TransactionClient;

export interface NewEvent {
  projectId: string;
  type: EventType;
  title: string;
  description?: string | null;
  userId?: string | null;
  asset?: EventAssetSnapshot | null;
  facts: EventFact[];
}

/**
 * Records an event inside the caller's transaction, so an event exists exactly when its change does.
 * Its `txid` column (set by the database) is what lets the feed order events safely.
 */
export async function recordEvent(tx: Tx, event: NewEvent): Promise<void> {
  const meta = EVENT_TYPES[event.type];
  await tx.event.create({
    data: {
      projectId: event.projectId,
      type: event.type,
      severity: meta.severity,
      title: event.title,
      description: event.description ?? null,
      userId: event.userId ?? null,
      assetId: event.asset?.id ?? null,
      asset: event.asset ? { ...event.asset } : undefined,
      facts: event.facts.map((f) => ({ ...f })),
      notify: meta.notify,
    },
  });
}

/**
 * The same for the hand-written SQL paths (the pipeline's decision transaction): several events in
 * one statement on the caller's pg client, in the given order (their `seq` follows it).
 */
export async function recordEventsSql(client: Pick<pg.PoolClient, "query">, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  await client.query(
    `INSERT INTO events (id, project_id, user_id, type, severity, title, description, asset_id, asset, facts, notify, created_at, updated_at)
     SELECT gen_random_uuid(), e.project_id, e.user_id, e.type, e.severity::event_severity, e.title, e.description, e.asset_id, e.asset,
            e.facts, e.notify, now(), now()
       FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::uuid[], $8::jsonb[], $9::jsonb[], $10::boolean[])
            WITH ORDINALITY AS e(project_id, user_id, type, severity, title, description, asset_id, asset, facts, notify, n)
      ORDER BY e.n`,
    [
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
    ],
  );
}
