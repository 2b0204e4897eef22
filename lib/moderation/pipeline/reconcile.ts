import { config } from "@/lib/config";
import { sqlPool } from "@/lib/db/client";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import { requestProcessing } from "./dispatch";

/**
 * Assets can be `pending` with no run behind them: the process died between the upload's commit
 * and the send, or the Inngest server was unreachable. Every pending asset older than
 * SIEVE_PROCESSING_RECONCILE_SECONDS is handed over again; the event id (asset + generation) makes
 * a re-send a no-op when the first send did arrive. Each asset is re-sent at most once per period.
 */
export async function reconcilePendingAssets(limit = 500): Promise<number> {
  const seconds = config().pipeline.reconcileAfterSeconds;
  const { rows } = await sqlPool().query<Pick<AssetRow, "id" | "projectId" | "processingGeneration" | "type" | "queued">>(
    `UPDATE assets SET processing_requested_at = now()
      WHERE id IN (
        SELECT id FROM assets
         WHERE status = 'pending' AND created_at < now() - make_interval(secs => $1)
           AND (processing_requested_at IS NULL OR processing_requested_at < now() - make_interval(secs => $1))
         ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED)
      RETURNING id::text, project_id::text AS "projectId", processing_generation AS "processingGeneration", queued,
                replace(type::text, '-', '_') AS type`,
    [seconds, limit],
  );
  let sent = 0;
  for (const row of rows) if (await requestProcessing(row as Parameters<typeof requestProcessing>[0])) sent++;
  return sent;
}
