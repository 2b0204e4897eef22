import { enqueueJobs, type JobMessage } from "@/lib/jobs/outbox";
import type { SqlRunner } from "@/lib/db/sql";

/**
 * The job that delivers one event (or replay) to one connector: the Inngest function
 * `deliver-to-connector` (inngest/functions/deliver-to-connector.ts) runs once per message.
 */
export const CONNECTOR_DELIVERY_EVENT = "sieve/connector.delivery.requested";

export interface ConnectorDeliveryData {
  deliveryId: string;
  connectorId: string;
}

export function deliveryJob(data: ConnectorDeliveryData): JobMessage {
  // The message id deduplicates: the same delivery is never run twice by a re-sent message.
  return { id: `delivery-${data.deliveryId}`, name: CONNECTOR_DELIVERY_EVENT, data: { ...data } };
}

/** Queues deliveries inside the caller's transaction; call kickOutbox() after commit. */
export function enqueueDeliveries(runner: SqlRunner, deliveries: readonly ConnectorDeliveryData[]): Promise<void> {
  return enqueueJobs(runner, deliveries.map(deliveryJob));
}
