import type pg from "pg";
import { batchesEvent, bufferBatchEvent, formFullBatches, type BatchingFunction } from "./batching";
import { admissionDelay, leaseRun } from "./claiming";
import type { ExecutorContext } from "./context";
import { compileCached } from "./expressions";
import type { FunctionDefinition } from "./functions";
import { createRun, resumeWith, type CreatedRun, type EventPayload, type RunRow } from "./store";

/** Where dispatch may lease the runs it starts, for the caller to execute right after commit. */
export interface LeaseInto {
  runs: RunRow[];
  /** Whether this process has room for one more run (besides `runs`). */
  hasRoom: () => boolean;
}

/** The batch keys events were buffered under, per function: formBatches looks at them once per send. */
type BufferedBatches = Map<BatchingFunction, Set<string>>;

/**
 * Dispatches freshly recorded events (dispatchEvent each), then forms the batches they filled, so
 * a burst checks each batch key once. Returns whether it left work for the loop, and the functions
 * that buffered events (their batches are due at their timeouts).
 */
export async function dispatchEvents(
  ctx: ExecutorContext,
  client: pg.PoolClient,
  events: readonly EventPayload[],
  leaseInto?: LeaseInto,
): Promise<{ forLoop: boolean; batching: BatchingFunction[] }> {
  let forLoop = false;
  const buffered: BufferedBatches = new Map();
  for (const event of events) if (await dispatchEvent(ctx, client, event, buffered, leaseInto)) forLoop = true;
  if (await formBatches(ctx, client, buffered, leaseInto)) forLoop = true;
  return { forLoop, batching: [...buffered.keys()] };
}

/**
 * Starts the runs an event triggers and resumes the waits it matches (inside the caller's
 * transaction); with `leaseInto`, runs this process has room for are leased in the same transaction
 * and executed right after commit, skipping a separate claim (the path a `queue=false` upload waits on).
 * Returns whether it left work for the loop (a run it did not lease, or a resumed wait).
 */
async function dispatchEvent(
  ctx: ExecutorContext,
  client: pg.PoolClient,
  event: EventPayload,
  buffered: BufferedBatches,
  leaseInto?: LeaseInto,
): Promise<boolean> {
  let forLoop = false;
  for (const fn of ctx.functions.values()) {
    for (const trigger of fn.triggers) {
      if (!trigger.matches(event.name)) continue;
      if (trigger.expression && !trigger.expression({ event })) continue;
      if (batchesEvent(fn, event)) {
        const key = await bufferBatchEvent(client, fn, event);
        buffered.set(fn, (buffered.get(fn) ?? new Set()).add(key));
        break;
      }
      forLoop = (await startOrLease(ctx, client, fn, await createRun(client, { fn, event }), leaseInto)) || forLoop;
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

/** Runs of the batches these events filled. Returns whether it left work for the loop. */
async function formBatches(ctx: ExecutorContext, client: pg.PoolClient, buffered: BufferedBatches, leaseInto?: LeaseInto): Promise<boolean> {
  let forLoop = false;
  for (const [fn, keys] of buffered) {
    for (const created of await formFullBatches(client, fn, keys)) forLoop = (await startOrLease(ctx, client, fn, created, leaseInto)) || forLoop;
  }
  return forLoop;
}

/** Leases a new run for the caller when this process has room and its limits admit it; else it is the loop's. */
async function startOrLease(ctx: ExecutorContext, client: pg.PoolClient, fn: FunctionDefinition, created: CreatedRun | undefined, leaseInto?: LeaseInto) {
  if (!created) return false;
  if (leaseInto?.hasRoom()) {
    const admission = { id: created.id, function_id: fn.id, concurrency_keys: created.concurrencyKeys, throttle_key: created.throttleKey, started_at: null };
    // Never wait for a lock here: concurrent sends must not queue behind each other.
    if ((await admissionDelay(ctx, client, admission, true)) === undefined) {
      leaseInto.runs.push(await leaseRun(ctx, client, created.id));
      return false;
    }
  }
  return true;
}
