import { expireAbandonedUploads } from "@/lib/assets/multipart";
import { pruneExpiredIdempotencyRecords } from "@/lib/http/idempotency";
import { config } from "@/lib/config";
import { sqlPool } from "@/lib/db/client";
import { pruneExecutorHistory } from "@/lib/executor/store";
import { kickOutbox } from "@/lib/moderation/pipeline/outbox";
import { reconcilePendingAssets } from "@/lib/moderation/pipeline/reconcile";
import { resendStaleBatches } from "@/lib/assets/batch/batch";

/**
 * Periodic housekeeping: abandoned multipart uploads, expired idempotency records, executor history;
 * and, more often, the pipeline outbox, pending assets without a run, and unsent batches.
 */
export function startMaintenance(intervalMs = 60_000): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      await expireAbandonedUploads();
      await pruneExpiredIdempotencyRecords();
      await pruneExecutorHistory(sqlPool());
    } catch (error) {
      console.error("[sieve] maintenance failed:", error instanceof Error ? error.message : error);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  void tick();
  // Pending assets without a run behind them are handed to the pipeline again.
  let reconciling = false;
  const reconcile = async () => {
    if (reconciling) return;
    reconciling = true;
    try {
      await kickOutbox();
      await reconcilePendingAssets();
      await resendStaleBatches();
    } catch (error) {
      console.error("[sieve] reconciling pending assets failed:", error instanceof Error ? error.message : error);
    } finally {
      reconciling = false;
    }
  };
  const reconcileTimer = setInterval(() => void reconcile(), Math.min(intervalMs, config().pipeline.reconcileAfterSeconds * 1000));
  reconcileTimer.unref();
  // Events a crashed process left in the outbox go out at once.
  void reconcile();
  return () => {
    clearInterval(timer);
    clearInterval(reconcileTimer);
  };
}
