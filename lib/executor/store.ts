import crypto from "node:crypto";
import type pg from "pg";
import { expressionKey } from "./expressions";
import type { FunctionDefinition } from "./functions";

/**
 * The embedded executor's state in PostgreSQL. Every statement that changes a run is conditioned
 * on the caller's lease, so a process that lost its lease (paused, partitioned) cannot overwrite
 * the work of the process that took the run over.
 */
export interface EventPayload {
  id: string;
  name: string;
  data: Record<string, unknown>;
  user?: Record<string, unknown>;
  ts: number;
  v?: string;
}

export type Memo = Record<string, { data: unknown } | { error: unknown }>;

export interface PlannedStep {
  id: string;
  name?: string;
}

export interface RunRow {
  id: string;
  function_id: string;
  status: "queued" | "waiting" | "completed" | "failed" | "cancelled";
  /** The triggering event; a batch's first. */
  event: EventPayload;
  /** A batch run's events (batchEvents); null for a run of one event. */
  events: EventPayload[] | null;
  steps: Memo;
  stack: string[];
  planned: PlannedStep[];
  attempt: number;
  disable_immediate_execution: boolean;
  wait: WaitState | null;
  parent_run_id: string | null;
  parent_step_id: string | null;
  created_at: Date;
}

/** The timeout of a wait is the run's next_at. */
export type WaitState = { type: "event" | "invoke"; stepId: string };

type Queryable = Pick<pg.PoolClient, "query">;

export function newRunId(): string {
  // Time-ordered so runs sort by creation (like Inngest's ULIDs).
  return `${Date.now().toString(36).padStart(9, "0")}${crypto.randomBytes(10).toString("hex")}`;
}

/** Inserts the events not seen before (by id) and returns those. */
export async function insertNewEvents(client: Queryable, events: EventPayload[]): Promise<EventPayload[]> {
  if (events.length === 0) return [];
  const { rows } = await client.query<{ id: string }>(
    `INSERT INTO executor_events (id, name, payload)
     SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[])
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    [events.map((e) => e.id), events.map((e) => e.name), events.map((e) => JSON.stringify(e))],
  );
  const inserted = new Set(rows.map((r) => r.id));
  // delete(): an id repeated within one batch is inserted (and dispatched) once.
  return events.filter((e) => inserted.delete(e.id));
}

function concurrencyKeysFor(fn: FunctionDefinition, event: EventPayload): string[] {
  return fn.concurrency.map((c, index) => {
    const value = c.key ? expressionKey(c.key({ event })) : "";
    const scope = c.scope === "fn" ? `fn:${fn.id}:${index}` : `${c.scope}`;
    // The limit travels with the key so a claim can check it without the function table.
    return `${scope}:${value}|${c.limit}`;
  });
}

export interface NewRun {
  fn: FunctionDefinition;
  event: EventPayload;
  /** A batch (its first event is `event`). */
  batch?: EventPayload[];
  parent?: { runId: string; stepId: string };
}

/** Creates a run; returns undefined when the function's idempotency key was already used. */
export interface CreatedRun {
  id: string;
  concurrencyKeys: string[];
  throttleKey: string | null;
}

export async function createRun(client: Queryable, { fn, event, batch, parent }: NewRun): Promise<CreatedRun | undefined> {
  const id = newRunId();
  const idempotencyKey = fn.idempotency ? `${fn.id}:${expressionKey(fn.idempotency({ event }))}` : null;
  const throttleKey = fn.throttle ? `${fn.id}:${fn.throttle.key ? expressionKey(fn.throttle.key({ event })) : ""}` : null;
  const concurrencyKeys = concurrencyKeysFor(fn, event);
  const { rowCount } = await client.query(
    `INSERT INTO executor_runs (id, function_id, event, events, concurrency_keys, throttle_key, idempotency_key, parent_run_id, parent_step_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (idempotency_key) DO NOTHING`,
    [
      id,
      fn.id,
      JSON.stringify(event),
      batch ? JSON.stringify(batch) : null,
      concurrencyKeys,
      throttleKey,
      idempotencyKey,
      parent?.runId ?? null,
      parent?.stepId ?? null,
    ],
  );
  return rowCount ? { id, concurrencyKeys, throttleKey } : undefined;
}

/** Memoizes a step result on a run and makes it runnable now (used by waits and invokes). */
export async function resumeWith(client: Queryable, runId: string, stepId: string, value: { data: unknown } | { error: unknown }): Promise<void> {
  await client.query(
    `UPDATE executor_runs SET steps = steps || jsonb_build_object($2::text, $3::jsonb), stack = array_append(stack, $2),
       status = 'queued', wait = NULL, attempt = 0, next_at = now()
     WHERE id = $1 AND status = 'waiting' AND wait->>'stepId' = $2`,
    [runId, stepId, JSON.stringify(value)],
  );
}

/** Finished runs and seen event ids are kept for `retentionDays` (Inngest deduplicates event ids for 24 h). */
export async function pruneExecutorHistory(client: Queryable, retentionDays = 7): Promise<{ runs: number; events: number }> {
  const runs = await client.query(
    `DELETE FROM executor_runs WHERE finished_at < now() - make_interval(days => $1) AND status IN ('completed', 'failed', 'cancelled')`,
    [retentionDays],
  );
  const events = await client.query(`DELETE FROM executor_events WHERE received_at < now() - make_interval(days => $1)`, [retentionDays]);
  return { runs: runs.rowCount ?? 0, events: events.rowCount ?? 0 };
}
