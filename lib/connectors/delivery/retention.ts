import type pg from "pg";

type Queryable = Pick<pg.PoolClient, "query">;

/**
 * The deliveries log's retention (CONNECTOR_DELIVERY_RETENTION_DAYS): a delivery created more than
 * that many days ago is deleted with its attempts (their foreign key cascades), unless it is still
 * pending. Without it the log grows by a row per event and connector for ever.
 *
 * One statement deletes at most PRUNE_BATCH rows, found per connector through the
 * (connector_id, created_at) index, so no index is added to the rows every delivery writes, and
 * each statement is short beside the hot path's inserts. A run deletes at most `maxBatches` of
 * them: the first run after an upgrade over a large old log spreads over the following runs
 * rather than holding the server's other housekeeping.
 */
const PRUNE_BATCH = 1000;
const MAX_BATCHES_PER_RUN = 50;

const PRUNE_DELIVERIES = `DELETE FROM connector_deliveries WHERE id IN (
  SELECT old.id FROM connectors c CROSS JOIN LATERAL (
    SELECT d.id FROM connector_deliveries d
     WHERE d.connector_id = c.id AND d.created_at < now() - make_interval(days => $1::int) AND d.status <> 'pending'
     ORDER BY d.created_at LIMIT $2::int) old
  LIMIT $2::int)`;

/** Deletes the deliveries older than `retentionDays` (0: keeps all); returns how many went. */
export async function pruneDeliveryLog(
  db: Queryable,
  retentionDays: number,
  { batch = PRUNE_BATCH, maxBatches = MAX_BATCHES_PER_RUN }: { batch?: number; maxBatches?: number } = {},
): Promise<number> {
  if (retentionDays <= 0) return 0;
  let deleted = 0;
  for (let statement = 0; statement < maxBatches; statement++) {
    const { rowCount } = await db.query(PRUNE_DELIVERIES, [retentionDays, batch]);
    deleted += rowCount ?? 0;
    if ((rowCount ?? 0) < batch) break;
  }
  return deleted;
}
