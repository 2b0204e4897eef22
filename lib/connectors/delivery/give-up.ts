import { sqlPool } from "@/lib/db/client";

/**
 * The end of a delivery whose job failed for good (the database kept failing through every retry
 * of the job runner): it will not be attempted again, so it is `failed`, with the reason.
 */
export const FAIL_DELIVERY = `UPDATE connector_deliveries
   SET status = 'failed', next_attempt_at = NULL, finished_at = now(), updated_at = now(), last_error = $2::text
 WHERE id = $1::uuid AND status = 'pending'`;

export async function failDelivery(deliveryId: string, reason: string): Promise<void> {
  await sqlPool().query(FAIL_DELIVERY, [deliveryId, `delivery job failed: ${reason}`.slice(0, 2000)]);
}
