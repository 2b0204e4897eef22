import type pg from "pg";
import { enqueueJobs, type JobMessage } from "@/lib/jobs/outbox";
import { config } from "@/lib/core/config";
import type { SqlRunner } from "@/lib/db/sql";
import { recoverDispatchPasses } from "./delivery/passes";

/**
 * The job that delivers one event (or replay) to one connector: the Inngest function
 * `deliver-to-connector` (inngest/functions/deliver-to-connector.ts) runs once per message and owns
 * every attempt after the first (retries on the schedule, the disable rule).
 */
export const CONNECTOR_DELIVERY_EVENT = "sieve/connector.delivery.requested";

export interface ConnectorDeliveryData {
  deliveryId: string;
  connectorId: string;
}

export function deliveryJob(data: ConnectorDeliveryData): JobMessage {
  // The message id deduplicates: the same delivery is never run twice by a re-sent message. Only the
  // two ids go out: a dispatched delivery also carries its loaded connector (secrets included).
  return { id: `delivery-${data.deliveryId}`, name: CONNECTOR_DELIVERY_EVENT, data: { deliveryId: data.deliveryId, connectorId: data.connectorId } };
}

/** Queues deliveries inside the caller's transaction; call kickOutbox() after commit. */
export function enqueueDeliveries(runner: SqlRunner, deliveries: readonly ConnectorDeliveryData[]): Promise<void> {
  return enqueueJobs(runner, deliveries.map(deliveryJob));
}

export const MARK_DELIVERIES_QUEUED = `UPDATE connector_deliveries SET queued_at = now() WHERE id = ANY ($1::uuid[]) AND queued_at IS NULL`;

/**
 * Hands deliveries to the job runner (inside the caller's transaction; kickOutbox() after commit)
 * and notes it on their rows, so the sweep for lost first attempts leaves them alone.
 */
export async function handOffDeliveries(runner: SqlRunner, deliveries: readonly ConnectorDeliveryData[]): Promise<void> {
  if (deliveries.length === 0) return;
  await runner.query(MARK_DELIVERIES_QUEUED, [deliveries.map((d) => d.deliveryId)]);
  await enqueueDeliveries(runner, deliveries);
}

/**
 * Stored deliveries a crash (or a failing database) left without a job: pending and never handed to
 * the job runner, $1 seconds old (CONNECTOR_SWEEP_AFTER_SECONDS) — a first attempt that never
 * happened (the process died between storing and attempting), or one left pending whose hand-off
 * did not commit (a failure is handed off in the transaction of its record, attempt.ts; an outcome
 * read back pending, or a delivery overdue in its lane, is handed off after: first-attempts.ts).
 * A first attempt takes at most MAX_WAIT_MS in its lane plus the request's timeout, well under the
 * default minute; a hand-off racing the sweep is one job all the same (the message id
 * deduplicates, attempts are idempotent).
 */
export const CLAIM_LOST_DELIVERIES = `WITH stale AS (
    SELECT id FROM connector_deliveries
     WHERE status = 'pending' AND queued_at IS NULL AND created_at < now() - make_interval(secs => $1::float8)
     ORDER BY created_at LIMIT 500 FOR UPDATE SKIP LOCKED)
  UPDATE connector_deliveries d SET queued_at = now() FROM stale WHERE d.id = stale.id
  RETURNING d.id, d.connector_id`;

/**
 * Queues, in the caller's transaction, the deliveries of dispatch passes a crash left unstored
 * (delivery/passes.ts) and the stored deliveries a crash left without a job.
 */
export async function queueLostDeliveries(client: pg.PoolClient): Promise<number> {
  const afterSeconds = config().connectors.sweepAfterSeconds;
  const recovered = await recoverDispatchPasses(client, afterSeconds);
  const { rows } = await client.query<{ id: string; connector_id: string }>(CLAIM_LOST_DELIVERIES, [afterSeconds]);
  const claimed = rows.map((r) => ({ deliveryId: r.id, connectorId: r.connector_id }));
  await enqueueDeliveries(client, [...recovered, ...claimed]);
  return recovered.length + claimed.length;
}
