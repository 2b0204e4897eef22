import type pg from "pg";
import { admissionDelay, leaseRun } from "./claiming";
import type { ExecutorContext } from "./context";
import { compileCached } from "./expressions";
import { createRun, resumeWith, type EventPayload, type RunRow } from "./store";

/** Where dispatch may lease the runs it starts, for the caller to execute right after commit. */
export interface LeaseInto {
  runs: RunRow[];
  /** Whether this process has room for one more run (besides `runs`). */
  hasRoom: () => boolean;
}

/**
 * Starts the runs an event triggers and resumes the waits it matches (inside the caller's
 * transaction); with `leaseInto`, runs this process has room for are leased in the same transaction
 * and executed right after commit, skipping a separate claim (the path a `queue=false` upload waits on).
 * Returns whether it left work for the loop (a run it did not lease, or a resumed wait).
 */
export async function dispatchEvent(ctx: ExecutorContext, client: pg.PoolClient, event: EventPayload, leaseInto?: LeaseInto): Promise<boolean> {
  let forLoop = false;
  for (const fn of ctx.functions.values()) {
    for (const trigger of fn.triggers) {
      if (!trigger.matches(event.name)) continue;
      if (trigger.expression && !trigger.expression({ event })) continue;
      const created = await createRun(client, { fn, event });
      if (created && leaseInto?.hasRoom()) {
        const admission = { id: created.id, function_id: fn.id, concurrency_keys: created.concurrencyKeys, throttle_key: created.throttleKey, started_at: null };
        // Never wait for a lock here: concurrent sends must not queue behind each other.
        if ((await admissionDelay(ctx, client, admission, true)) === undefined) {
          leaseInto.runs.push(await leaseRun(ctx, client, created.id));
          break;
        }
      }
      forLoop ||= created !== undefined;
      break;
    }
  }
  const { rows } = await client.query<{ run_id: string; step_id: string; expression: string | null; run_event: EventPayload }>(
    `SELECT run_id, step_id, expression, run_event FROM executor_waits WHERE event_name = $1 FOR UPDATE`,
    [event.name],
  );
  for (const wait of rows) {
    if (wait.expression && !compileCached(wait.expression)({ event: wait.run_event, async: event })) continue;
    await client.query(`DELETE FROM executor_waits WHERE run_id = $1 AND step_id = $2`, [wait.run_id, wait.step_id]);
    await resumeWith(client, wait.run_id, wait.step_id, { data: event });
    forLoop = true;
  }
  return forLoop;
}
