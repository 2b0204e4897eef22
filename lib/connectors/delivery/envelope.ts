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

/** An envelope as it is sent: its id (the `webhook-id`) and its JSON, the request's body. */
export interface EnvelopeJson {
  id: string;
  json: string;
}

/** An event as a delivery reads it (lib/connectors/delivery/load.ts storedEvent): its id, type and envelope. */
export interface StoredEvent extends EnvelopeJson {
  type: string;
}

/** A JavaScript envelope as sent. */
export function envelopeJson(envelope: WebhookEnvelope): EnvelopeJson {
  return { id: envelope.id, json: JSON.stringify(envelope) };
}

/** The envelope of a message, for the connectors that render it (Slack, email). */
export function parseEnvelope(message: EnvelopeJson): WebhookEnvelope {
  return JSON.parse(message.json) as WebhookEnvelope;
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
