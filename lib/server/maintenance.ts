import { expireAbandonedUploads } from "@/lib/assets/multipart";
import { pruneExpiredIdempotencyRecords } from "@/lib/http/idempotency";

/** Periodic housekeeping: abandoned multipart uploads and expired idempotency records. */
export function startMaintenance(intervalMs = 60_000): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      await expireAbandonedUploads();
      await pruneExpiredIdempotencyRecords();
    } catch (error) {
      console.error("[sieve] maintenance failed:", error instanceof Error ? error.message : error);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}
