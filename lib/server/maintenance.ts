import { resendStaleBatches } from "@/lib/assets/batch/batch";
import { expireAbandonedUploads } from "@/lib/assets/multipart";
import { config } from "@/lib/core/config";
import { sqlPool } from "@/lib/db/client";
import { pruneExecutorHistory } from "@/lib/executor/store";
import { pruneExpiredIdempotencyRecords } from "@/lib/http/idempotency";
import { kickOutbox } from "@/lib/moderation/pipeline/outbox";
import { reconcilePendingAssets } from "@/lib/moderation/pipeline/reconcile";

/** Runs `task` now and every `intervalMs` (never two at once); failures are logged. */
function every(label: string, intervalMs: number, task: () => Promise<unknown>): () => void {
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      await task();
    } catch (error) {
      console.error(`[sieve] ${label} failed:`, error instanceof Error ? error.message : error);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void run(), intervalMs);
  timer.unref();
  void run();
  return () => clearInterval(timer);
}

/**
 * Periodic housekeeping: abandoned multipart uploads, expired idempotency records, executor history;
 * and, more often, the pipeline outbox (at start too: what a crashed process left goes out at once),
 * pending assets without a run, and unsent batches.
 */
export function startMaintenance(intervalMs = 60_000): () => void {
  const stops = [
    every("maintenance", intervalMs, async () => {
      await expireAbandonedUploads();
      await pruneExpiredIdempotencyRecords();
      await pruneExecutorHistory(sqlPool());
    }),
    every("pipeline reconciliation", Math.min(intervalMs, config().pipeline.reconcileAfterSeconds * 1000), async () => {
      await kickOutbox();
      await reconcilePendingAssets();
      await resendStaleBatches();
    }),
  ];
  return () => stops.forEach((stop) => stop());
}
