import type { EventAssetSnapshot, EventFact } from "@/lib/events/catalogue";

/**
 * What every connector delivers: the webhook envelope `{id, type, createdAt, projectId, data}`. For an
 * event, `id` is the event id (the `webhook-id` too, the same on every retry and replay, so a receiver
 * deduplicates on it) and `data` is the event as the feed shows it; for a test message, the id is the
 * test delivery's id and the type `connector.test`. Slack and email render the same envelope.
 */
export interface WebhookEnvelope {
  id: string;
  type: string;
  /** Event time, ms since the epoch. */
  createdAt: number;
  projectId: string;
  data: {
    severity: "low" | "high";
    title: string;
    description: string | null;
    assetId: string | null;
    asset: EventAssetSnapshot | null;
    facts: EventFact[];
  };
}

/** The stored event's columns a delivery reads (lib/connectors/delivery/store.ts selects them). */
export interface StoredEvent {
  id: string;
  projectId: string;
  type: string;
  severity: string;
  title: string;
  description: string | null;
  assetId: string | null;
  asset: unknown;
  facts: unknown;
  /** ms since the epoch. */
  createdMs: number;
}

export function eventEnvelope(event: StoredEvent): WebhookEnvelope {
  return {
    id: event.id,
    type: event.type,
    createdAt: event.createdMs,
    projectId: event.projectId,
    data: {
      severity: event.severity === "high" ? "high" : "low",
      title: event.title,
      description: event.description,
      assetId: event.assetId,
      asset: (event.asset ?? null) as EventAssetSnapshot | null,
      facts: Array.isArray(event.facts) ? (event.facts as EventFact[]) : [],
    },
  };
}

export const TEST_MESSAGE_TYPE = "connector.test";

/** The synthetic envelope of a test message (`POST /connectors/{id}/test`). */
export function testEnvelope(deliveryId: string, projectId: string, connectorName: string, createdAt: Date): WebhookEnvelope {
  return {
    id: deliveryId,
    type: TEST_MESSAGE_TYPE,
    createdAt: createdAt.getTime(),
    projectId,
    data: {
      severity: "low",
      title: "Test message from Sieve",
      description: `This is a test message for the connector "${connectorName}". If you can read it, the connector works.`,
      assetId: null,
      asset: null,
      facts: [],
    },
  };
}
