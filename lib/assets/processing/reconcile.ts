import { config } from "@/lib/core/config";
import { sqlPool } from "@/lib/db/client";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import { withTransaction } from "@/lib/db/transaction";
import { enqueueJobs, kickOutbox } from "@/lib/jobs/outbox";
import { processingRequest } from "./request";

/**
 * Assets can be `pending` with no run behind them, e.g. when the Inngest server lost an event.
 * Every pending asset older than SIEVE_PROCESSING_RECONCILE_SECONDS goes back into the pipeline
 * job outbox (at most once per period); the event id (asset + generation) makes the re-send a no-op
 * when the first one did arrive.
 *
 * The statement marks up to $2 assets pending for longer than $1 seconds (and not re-requested since) as re-requested.
 */
export const REQUEUE_STALE_PENDING = `UPDATE assets SET processing_requested_at = now()
        WHERE id IN (
          SELECT id FROM assets
           WHERE status = 'pending' AND created_at < now() - make_interval(secs => $1)
             AND (processing_requested_at IS NULL OR processing_requested_at < now() - make_interval(secs => $1))
           ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id::text, project_id::text AS "projectId", processing_generation AS "processingGeneration", queued,
                  replace(type::text, '-', '_') AS type`;

export async function reconcilePendingAssets(limit = 500): Promise<number> {
  const seconds = config().pipeline.reconcileAfterSeconds;
  const count = await withTransaction(sqlPool(), async (client) => {
    const { rows } = await client.query<Pick<AssetRow, "id" | "projectId" | "processingGeneration" | "type" | "queued">>(
      REQUEUE_STALE_PENDING,
      [seconds, limit],
    );
    await enqueueJobs(client, rows.map(processingRequest));
    return rows.length;
  });
  if (count > 0) await kickOutbox();
  return count;
}
