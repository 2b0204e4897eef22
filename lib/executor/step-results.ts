import { blockOn } from "./blocking-ops";
import type { ExecutorContext } from "./context";
import type { FunctionDefinition } from "./functions";
import { memoize, type Outcome } from "./outcome";
import { callFunction, type Op } from "./protocol";
import type { RunRow } from "./store";

/**
 * One round of calls of our serve() endpoint for a run (one call, or one per planned step) and
 * what the SDK's answers mean for it: memoized step results, retries with backoff, the end of the
 * run, or an op that blocks it (sleep, waitForEvent, invoke).
 */

/** Runs one round of calls; returns "continue" when the run can be called again at once. */
export async function runRound(ctx: ExecutorContext, fn: FunctionDefinition, run: RunRow): Promise<"continue" | Outcome> {
  const call = (stepId: string, disableImmediateExecution: boolean) =>
    timed(ctx, run, stepId, () => callFunction({
      url: fn.url,
      stepId,
      run,
      maxAttempts: fn.maxAttempts,
      disableImmediateExecution,
      signingKey: ctx.opts.signingKey,
      timeoutMs: ctx.opts.stepTimeoutMs,
      handler: ctx.opts.serveHandler?.(),
    }));

  const results = run.planned.length
    ? await Promise.all(run.planned.map((p) => call(p.id, true)))
    : [await call("step", run.disable_immediate_execution)];
  const plannedBefore = run.planned;
  run.planned = [];

  let blocking: Op | undefined;
  let retry: { ops: Op[]; delayMs?: number } | undefined;
  for (const [index, result] of results.entries()) {
    if (result.kind === "complete") return { status: "completed", output: result.output };
    if (result.kind === "error") {
      if (result.status === 401 && !ctx.warnedUnauthorized) {
        // Retried like any failure, but a key mismatch never heals by itself: say so loudly.
        ctx.warnedUnauthorized = true;
        ctx.opts.log(`${fn.url} refused the executor's signature (401): the app and the executor use different INNGEST_SIGNING_KEYs`);
      }
      if (!result.retriable || run.attempt + 1 >= fn.maxAttempts) return { status: "failed", error: result.error };
      retry = { ops: plannedBefore[index] ? [{ op: "StepPlanned", id: plannedBefore[index].id }] : [], delayMs: result.retryAfterMs };
      continue;
    }
    const planned = result.ops.filter((op) => op.op === "StepPlanned");
    if (planned.length > 0) {
      run.planned.push(...planned.map((op) => ({ id: op.id, name: op.name })));
      if (planned.length > 1) run.disable_immediate_execution = true;
    }
    for (const op of result.ops) {
      switch (op.op) {
        case "StepPlanned":
          break;
        case "StepRun":
        case "Step":
          memoize(run, op.id, { data: op.data ?? null });
          break;
        case "StepFailed":
          memoize(run, op.id, { error: op.error ?? null });
          break;
        case "StepError":
          retry = { ops: [...(retry?.ops ?? []), op], delayMs: result.retryAfterMs ?? retry?.delayMs };
          break;
        case "RunComplete":
          return { status: "completed", output: op.data ?? null };
        case "Sleep":
        case "WaitForEvent":
        case "InvokeFunction":
          blocking ??= op;
          break;
        case "StepNotFound":
          return { status: "failed", error: { name: "StepNotFound", message: `step ${op.displayName ?? op.id} was not found (renamed or removed?)` } };
        default:
          return { status: "failed", error: { name: "UnsupportedOperation", message: `the embedded executor does not implement ${op.op}` } };
      }
    }
  }

  if (retry) {
    // Keep the steps that failed (and any not yet executed) planned for the next attempt.
    for (const op of retry.ops) if (!run.planned.some((p) => p.id === op.id) && op.id) run.planned.push({ id: op.id, name: op.name });
    run.attempt += 1;
    return { status: "queued", nextAt: Date.now() + (retry.delayMs ?? backoff(ctx, run.attempt - 1)) };
  }
  if (blocking && run.planned.length === 0) return blockOn(ctx, run, blocking);
  run.attempt = 0;
  return "continue";
}

/** With `debug` (SIEVE_EXECUTOR_DEBUG), every call is logged with its duration. */
async function timed<T>(ctx: ExecutorContext, run: RunRow, stepId: string, call: () => Promise<T>): Promise<T> {
  if (!ctx.opts.debug) return call();
  const started = performance.now();
  const result = await call();
  const summary = JSON.stringify(result).slice(0, 160);
  ctx.opts.log(`run ${run.id} ${run.function_id} step=${stepId.slice(0, 8)} ${(performance.now() - started).toFixed(1)} ms ${summary}`);
  return result;
}

function backoff(ctx: ExecutorContext, attempt: number): number {
  const base = ctx.opts.retryBaseMs * 2 ** Math.min(attempt, 12);
  return Math.min(base, 60 * 60_000) * (0.75 + Math.random() * 0.5);
}
