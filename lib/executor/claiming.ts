import type pg from "pg";
import { withTransaction } from "@/lib/db/transaction";
import type { ExecutorContext } from "./context";
import type { RunRow } from "./store";

/**
 * Claiming runs for this process. Several processes can share one database: runs are claimed with
 * leases (`FOR UPDATE SKIP LOCKED`), kept alive by a heartbeat, and admitted only within their
 * functions' concurrency and throttle limits.
 */

/** What admission needs to know about a run (a claimed row, or a run just created by dispatch). */
export interface AdmissionCandidate {
  id: string;
  function_id: string;
  concurrency_keys: string[];
  throttle_key: string | null;
  started_at: Date | null;
}

/**
 * Due runs, oldest first, leaving out those a concurrency key that is full right now (as many leased
 * runs as its limit, the number after its last `|`) would refuse anyway: with a backlog of thousands
 * behind one full key, each claim would otherwise sort them all and postpone a page of them, only
 * to find the same ones again a moment later. Admission (admissionDelay) still decides, under the
 * keys' locks.
 */
export const SELECT_CLAIMABLE_RUNS = `WITH full_keys AS (
    SELECT key FROM (SELECT unnest(concurrency_keys) AS key FROM executor_runs WHERE lease_until > now()) leased
     GROUP BY key HAVING count(*) >= split_part(key, '|', -1)::int)
  SELECT * FROM executor_runs
   WHERE status IN ('queued', 'waiting') AND next_at <= now() AND (lease_until IS NULL OR lease_until < now())
     AND NOT (concurrency_keys && ARRAY(SELECT key FROM full_keys))
   ORDER BY next_at LIMIT $1 FOR UPDATE SKIP LOCKED`;

/** Leases up to `limit` runs that are due, postponing those their limits do not admit yet. */
export async function claimRuns(ctx: ExecutorContext, limit: number): Promise<RunRow[]> {
  return withTransaction(ctx.opts.pool, async (client) => {
    const { rows } = await client.query<RunRow & AdmissionCandidate>(SELECT_CLAIMABLE_RUNS, [limit]);
    const claimed: RunRow[] = [];
    for (const run of rows) {
      const delay = await admissionDelay(ctx, client, run);
      if (delay !== undefined) {
        await client.query(`UPDATE executor_runs SET next_at = now() + make_interval(secs => $2) WHERE id = $1`, [run.id, delay / 1000]);
        continue;
      }
      claimed.push(await leaseRun(ctx, client, run.id));
    }
    return claimed;
  });
}

/** Takes a run for this process (inside the caller's transaction) and returns it as leased. */
export async function leaseRun(ctx: ExecutorContext, client: pg.PoolClient, runId: string): Promise<RunRow> {
  const { rows } = await client.query<RunRow>(
    `UPDATE executor_runs SET lease_owner = $2, lease_until = now() + make_interval(secs => $3), started_at = coalesce(started_at, now())
      WHERE id = $1 RETURNING *`,
    [runId, ctx.workerId, ctx.opts.leaseMs / 1000],
  );
  return rows[0]!;
}

/**
 * Concurrency (steps executing at once per key) and throttle (runs started per period): how long
 * to postpone the run, or undefined when it may start now.
 */
export async function admissionDelay(
  ctx: ExecutorContext,
  client: pg.PoolClient,
  run: AdmissionCandidate,
  /** Give up (admit nothing) instead of waiting when another transaction holds a key's lock. */
  tryOnly = false,
): Promise<number | undefined> {
  const keys = [...run.concurrency_keys].sort();
  for (const key of keys) {
    if (tryOnly) {
      const { rows } = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS ok`, [`executor:${key}`]);
      if (!rows[0]!.ok) return 0;
    } else await client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`executor:${key}`]);
    const limit = Number(key.slice(key.lastIndexOf("|") + 1));
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM executor_runs WHERE concurrency_keys @> ARRAY[$1] AND lease_until > now() AND id <> $2`,
      [key, run.id],
    );
    if (rows[0]!.n >= limit) return 100;
  }
  const fn = ctx.functions.get(run.function_id);
  if (fn?.throttle && run.throttle_key && run.started_at === null) {
    if (tryOnly) {
      const { rows } = await client.query<{ ok: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS ok`, [
        `executor-throttle:${run.throttle_key}`,
      ]);
      if (!rows[0]!.ok) return 0;
    } else await client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`executor-throttle:${run.throttle_key}`]);
    const capacity = fn.throttle.limit + Math.max(0, fn.throttle.burst - 1);
    const { rows } = await client.query<{ started_at: Date }>(
      `SELECT started_at FROM executor_runs WHERE throttle_key = $1 AND started_at > now() - make_interval(secs => $2)
       ORDER BY started_at DESC LIMIT $3`,
      [run.throttle_key, fn.throttle.periodMs / 1000, capacity],
    );
    if (rows.length >= capacity) return Math.max(10, rows[rows.length - 1]!.started_at.getTime() + fn.throttle.periodMs - Date.now());
  }
  return undefined;
}

/** The heartbeat: extends the leases of the runs this process is executing. */
export async function renewLeases(ctx: ExecutorContext, runIds: string[]): Promise<void> {
  if (runIds.length === 0) return;
  await ctx.opts.pool
    .query(`UPDATE executor_runs SET lease_until = now() + make_interval(secs => $3) WHERE lease_owner = $1 AND id = ANY($2)`, [
      ctx.workerId,
      runIds,
      ctx.opts.leaseMs / 1000,
    ])
    .catch((error: Error) => ctx.opts.log(`lease renewal failed: ${error.message}`));
}
