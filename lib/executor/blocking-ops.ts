import type pg from "pg";
import type { ExecutorContext } from "./context";
import { wakeTime } from "./durations";
import { compileCached, ExpressionError } from "./expressions";
import { memoize, type Outcome } from "./outcome";
import type { Op } from "./protocol";
import { createRun, type EventPayload, type RunRow } from "./store";

/**
 * The ops that block a run until a time, an event or another run: step.sleep / sleepUntil,
 * step.waitForEvent and step.invoke. Waits and invokes are registered with the run's outcome
 * (Outcome.register); events (dispatch) and finished children (finishRun) resume the run.
 */

const DEFAULT_INVOKE_TIMEOUT_MS = 365 * 86_400_000;

export async function blockOn(ctx: ExecutorContext, run: RunRow, op: Op): Promise<Outcome> {
  run.attempt = 0;
  if (op.op === "Sleep") {
    // step.sleep(0) (or a negative duration) comes as an empty duration: wake at once.
    const wake = op.name === "" ? Date.now() : wakeTime(op.name ?? "");
    if (wake === undefined) return { status: "failed", error: { name: "Error", message: `cannot read sleep duration ${JSON.stringify(op.name)}` } };
    memoize(run, op.id, { data: null });
    return { status: "queued", nextAt: wake };
  }
  if (op.op === "WaitForEvent") {
    // A duration, or an ISO date when the timeout was given as a Date.
    const timeoutMs = Math.max(0, (wakeTime(String(op.opts?.timeout ?? "")) ?? Date.now()) - Date.now());
    if (op.opts?.if) {
      try {
        compileCached(op.opts.if);
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        const message = `step.waitForEvent "${op.displayName ?? op.id}" uses an expression the embedded executor does not implement: ${error.message}`;
        return { status: "failed", error: { name: "UnsupportedExpression", message } };
      }
    }
    const register = async (client: pg.PoolClient) => {
      await client.query(
        `INSERT INTO executor_waits (run_id, step_id, event_name, expression, run_event) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
        [run.id, op.id, op.name, op.opts?.if ?? null, JSON.stringify(run.event)],
      );
    };
    return { status: "waiting", wait: { type: "event", stepId: op.id }, nextAt: Date.now() + timeoutMs, register };
  }
  const target = ctx.functions.get(String(op.opts?.function_id));
  if (!target) {
    memoize(run, op.id, { error: { name: "Error", message: `invoked function ${String(op.opts?.function_id)} is not served` } });
    return { status: "queued", nextAt: Date.now() };
  }
  const child: EventPayload = {
    id: `invoke-${run.id}-${op.id}`,
    name: "inngest/function.invoked",
    data: (op.opts?.payload?.data ?? {}) as Record<string, unknown>,
    ts: Date.now(),
  };
  // The child run names its parent (parent_run_id, parent_step_id); finishing it resumes the parent.
  const register = async (client: pg.PoolClient) => {
    await createRun(client, { fn: target, event: child, parent: { runId: run.id, stepId: op.id } });
  };
  const timeoutAt = op.opts?.timeout ? wakeTime(op.opts.timeout) : undefined;
  return { status: "waiting", wait: { type: "invoke", stepId: op.id }, nextAt: timeoutAt ?? Date.now() + DEFAULT_INVOKE_TIMEOUT_MS, register };
}
