import type pg from "pg";
import { withTransaction } from "@/lib/db/transaction";
import type { ExecutorContext } from "./context";
import { expressionKey } from "./expressions";
import type { FunctionDefinition } from "./functions";
import { createRun, type CreatedRun, type EventPayload } from "./store";

/**
 * Event batching (a function's `batchEvents`), as Inngest does it: the events of one batch key are
 * buffered in `executor_batch_events`, and become one run, with the events in arrival order, when
 * `maxSize` of them are buffered or `timeout` after the first of them arrived, whichever comes
 * first. The buffer is in the database, so a restart loses nothing; several processes may form
 * batches at once (each takes rows the others have not locked).
 */

type Queryable = Pick<pg.PoolClient, "query">;
export type BatchingFunction = FunctionDefinition & { batch: NonNullable<FunctionDefinition["batch"]> };

export const BUFFER_BATCH_EVENT = `INSERT INTO executor_batch_events (function_id, batch_key, event_id, event, due_at)
  VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5)) ON CONFLICT (function_id, event_id) DO NOTHING`;

/** The keys of $2 with at least $3 buffered events. */
export const SELECT_FULL_BATCH_KEYS = `SELECT batch_key FROM executor_batch_events
  WHERE function_id = $1 AND batch_key = ANY ($2::text[]) GROUP BY batch_key HAVING count(*) >= $3`;

/** Functions and keys whose oldest buffered event is due. */
export const SELECT_DUE_BATCH_KEYS = `SELECT DISTINCT function_id, batch_key FROM executor_batch_events WHERE due_at <= now()`;

/** Takes (deletes and returns) the oldest $3 buffered events of a key that no one else is taking. */
export const TAKE_BATCH = `DELETE FROM executor_batch_events WHERE seq IN (
    SELECT seq FROM executor_batch_events WHERE function_id = $1 AND batch_key = $2 ORDER BY seq LIMIT $3 FOR UPDATE SKIP LOCKED)
  RETURNING seq, event`;

/** Whether this event goes to a batch of `fn` (rather than a run of its own: the batch's `if`). */
export function batchesEvent(fn: FunctionDefinition, event: EventPayload): fn is BatchingFunction {
  return fn.batch !== undefined && (!fn.batch.condition || fn.batch.condition({ event }) === true);
}

function batchKeyOf(fn: BatchingFunction, event: EventPayload): string {
  return fn.batch.key ? expressionKey(fn.batch.key({ event })) : "";
}

function batching(fn: FunctionDefinition): fn is BatchingFunction {
  return fn.batch !== undefined;
}

/** Buffers an event for `fn`'s batches; returns its batch key. */
export async function bufferBatchEvent(client: Queryable, fn: BatchingFunction, event: EventPayload): Promise<string> {
  const key = batchKeyOf(fn, event);
  await client.query(BUFFER_BATCH_EVENT, [fn.id, key, event.id, JSON.stringify(event), fn.batch.timeoutMs / 1000]);
  return key;
}

/** Turns up to maxSize buffered events of a key into a run; undefined when none were free. */
async function takeBatch(client: Queryable, fn: BatchingFunction, key: string): Promise<{ run: CreatedRun; size: number } | undefined> {
  const { rows } = await client.query<{ seq: string; event: EventPayload }>(TAKE_BATCH, [fn.id, key, fn.batch.maxSize]);
  if (rows.length === 0) return undefined;
  const events = rows.sort((a, b) => Number(BigInt(a.seq) - BigInt(b.seq))).map((row) => row.event);
  const run = await createRun(client, { fn, event: events[0]!, batch: events });
  return run && { run, size: events.length };
}

/** Forms a run of every key of `keys` that has a full batch buffered (inside the caller's transaction). */
export async function formFullBatches(client: Queryable, fn: BatchingFunction, keys: Iterable<string>): Promise<CreatedRun[]> {
  const created: CreatedRun[] = [];
  let candidates = [...new Set(keys)];
  while (candidates.length > 0) {
    const { rows } = await client.query<{ batch_key: string }>(SELECT_FULL_BATCH_KEYS, [fn.id, candidates, fn.batch.maxSize]);
    candidates = [];
    for (const { batch_key } of rows) {
      const taken = await takeBatch(client, fn, batch_key);
      if (!taken) continue;
      created.push(taken.run);
      // A key may hold several full batches (a burst larger than maxSize).
      if (taken.size === fn.batch.maxSize) candidates.push(batch_key);
    }
  }
  return created;
}

/** When the next buffered batch of these functions is due (null: none is buffered). */
export const SELECT_NEXT_BATCH_DUE = `SELECT min(due_at) AS due FROM executor_batch_events WHERE function_id = ANY ($1::text[])`;

/**
 * Forms a run of every batch whose first event waited its timeout, and returns when the next
 * buffered batch (of a function this process serves) is due. Events a function buffered before it
 * stopped batching (a deploy changed it) become runs of their own.
 */
export async function formDueBatches(ctx: ExecutorContext): Promise<{ formed: number; nextDueAt: number | null }> {
  return withTransaction(ctx.opts.pool, async (client) => {
    const { rows } = await client.query<{ function_id: string; batch_key: string }>(SELECT_DUE_BATCH_KEYS);
    let formed = 0;
    for (const { function_id, batch_key } of rows) {
      const fn = ctx.functions.get(function_id);
      // A function this process does not serve (a rolling deploy): left to a process that does.
      if (!fn) continue;
      if (!batching(fn)) {
        const { rows: events } = await client.query<{ event: EventPayload }>(TAKE_BATCH, [fn.id, batch_key, 1000]);
        for (const { event } of events) if (await createRun(client, { fn, event })) formed++;
        continue;
      }
      for (;;) {
        const taken = await takeBatch(client, fn, batch_key);
        if (taken) formed++;
        if (!taken || taken.size < fn.batch.maxSize) break;
      }
    }
    const { rows: next } = await client.query<{ due: Date | null }>(SELECT_NEXT_BATCH_DUE, [[...ctx.functions.keys()]]);
    return { formed, nextDueAt: next[0]?.due?.getTime() ?? null };
  });
}
