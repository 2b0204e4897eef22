import { processSingleton } from "@/lib/core/singleton";
import { sqlPool } from "@/lib/db/client";

/**
 * Records when a key was last used, cheaply: at most one write per key a minute from this process
 * (the UPDATE's own condition keeps other processes from writing more often), and never on the
 * request's path: the write is not awaited and a failure only loses one "last used" stamp. The
 * column is excluded from the key-change notification, so it does not empty the key cache.
 */
const INTERVAL_MS = 60_000;
const MAX_TRACKED = 10_000;

export function noteKeyUse(keyId: string, now = Date.now()): void {
  // One map per process, however many bundles load this module.
  const recordedAt = processSingleton("apiKeyUseRecordedAt", () => new Map<string, number>());
  const last = recordedAt.get(keyId);
  if (last !== undefined && now - last < INTERVAL_MS) return;
  if (recordedAt.size >= MAX_TRACKED) recordedAt.clear();
  recordedAt.set(keyId, now);
  sqlPool()
    .query({
      name: "sieve-note-api-key-use",
      text: `UPDATE api_keys SET last_used_at = now()
             WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')`,
      values: [keyId],
    })
    .catch((error: unknown) => {
      recordedAt.delete(keyId);
      console.error(`[sieve] could not record the use of API key ${keyId}: ${error instanceof Error ? error.message : String(error)}`);
    });
}
