import type pg from "pg";
import { Rollback, withTransaction } from "@/lib/db/transaction";
import type { ExecutorContext } from "./context";
import { dispatchEvents } from "./dispatch";
import type { Outcome } from "./outcome";
import { insertNewEvents, resumeWith, type EventPayload, type RunRow } from "./store";

/**
 * Writes a run's outcome. Every write is conditioned on this process's lease: a process that lost
 * it leaves the run to the process that holds it.
 */

/** Persists the run state; `keepLease` keeps executing in this process. */
export async function saveRun(
  ctx: ExecutorContext,
  run: RunRow,
  outcome: Outcome,
  keepLease: boolean,
  client: pg.Pool | pg.PoolClient = ctx.opts.pool,
): Promise<boolean> {
  const { rowCount } = await client.query(
    `UPDATE executor_runs SET steps = $3, stack = $4, planned = $5, attempt = $6, status = $7, next_at = $8, wait = $9,
       disable_immediate_execution = $10, lease_owner = CASE WHEN $11 THEN lease_owner END, lease_until = CASE WHEN $11 THEN lease_until END
     WHERE id = $1 AND lease_owner = $2`,
    [
      run.id,
      ctx.workerId,
      JSON.stringify(run.steps),
      run.stack,
      JSON.stringify(run.planned),
      run.attempt,
      outcome.status,
      new Date(outcome.nextAt ?? Date.now()),
      outcome.wait ? JSON.stringify(outcome.wait) : null,
      run.disable_immediate_execution,
      keepLease,
    ],
  );
  if (!rowCount) ctx.opts.log(`run ${run.id}: lease lost, leaving it to the process that holds it`);
  return Boolean(rowCount);
}

/**
 * Releases the run with its outcome: registers what a waiting run waits for, or ends the run,
 * resuming its parent (step.invoke) and sending inngest/function.failed when it failed.
 */
export async function finishRun(ctx: ExecutorContext, run: RunRow, outcome: Outcome): Promise<void> {
  if (outcome.status !== "completed" && outcome.status !== "failed" && !outcome.register) {
    await saveRun(ctx, run, outcome, false);
    return;
  }
  if (outcome.register) {
    const register = outcome.register;
    await withTransaction(ctx.opts.pool, async (client) => {
      await register(client);
      if (!(await saveRun(ctx, run, outcome, false, client))) throw new Rollback(undefined);
    });
    return; // startExecution wakes the loop when execute() returns (a child run may be waiting)
  }
  await withTransaction(ctx.opts.pool, async (client) => {
    const { rowCount } = await client.query(
      `UPDATE executor_runs SET status = $3, output = $4, error = $5, steps = $6, stack = $7, planned = '[]', wait = NULL,
         finished_at = now(), lease_owner = NULL, lease_until = NULL
       WHERE id = $1 AND lease_owner = $2`,
      [
        run.id,
        ctx.workerId,
        outcome.status,
        outcome.status === "completed" ? JSON.stringify(outcome.output ?? null) : null,
        outcome.status === "failed" ? JSON.stringify(outcome.error ?? null) : null,
        JSON.stringify(run.steps),
        run.stack,
      ],
    );
    if (!rowCount) throw new Rollback(undefined);
    if (run.parent_run_id && run.parent_step_id) {
      const value = outcome.status === "completed" ? { data: outcome.output ?? null } : { error: outcome.error ?? null };
      await resumeWith(client, run.parent_run_id, run.parent_step_id, value);
    }
    if (outcome.status === "failed") {
      ctx.opts.log(`run ${run.id} of ${run.function_id} failed: ${JSON.stringify(outcome.error).slice(0, 500)}`);
      const failed: EventPayload = {
        id: `failed-${run.id}`,
        name: "inngest/function.failed",
        data: { function_id: run.function_id, run_id: run.id, error: outcome.error, event: run.event },
        ts: Date.now(),
      };
      await dispatchEvents(ctx, client, await insertNewEvents(client, [failed]));
    }
  });
}
