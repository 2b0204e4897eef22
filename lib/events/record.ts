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
