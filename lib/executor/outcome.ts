import type pg from "pg";
import type { RunRow, WaitState } from "./store";

/** What a round of calls decided for a run, before it is persisted. */
export interface Outcome {
  status: RunRow["status"];
  nextAt?: number;
  wait?: WaitState | null;
  output?: unknown;
  error?: unknown;
  /**
   * Writes what the run waits for (the wait row, the invoked run) in the transaction that marks the
   * run waiting: an event or a finished child can only see the run once it can be resumed.
   */
  register?: (client: pg.PoolClient) => Promise<void>;
}

/** Records a step result on the run being executed (saved with the run afterwards). */
export function memoize(run: RunRow, id: string, value: { data: unknown } | { error: unknown }): void {
  if (!(id in run.steps)) run.stack.push(id);
  run.steps[id] = value;
  run.attempt = 0;
}
