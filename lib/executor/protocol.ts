import { withTimeout } from "@/lib/core/timeout";
import type { ServeHandler } from "./in-process";
import { canonicalJson, signBody } from "./signing";
import type { EventPayload, Memo, RunRow } from "./store";

/**
 * One call of the SDK's serve() endpoint over Inngest's wire protocol (request version 2): the
 * executor sends the event, the memoized steps and the run context; the SDK answers 200 (the run
 * finished, body = output), 206 (a list of step operations), or an error status whose
 * `X-Inngest-No-Retry` header says whether a retry may help.
 */
export interface Op {
  op: string;
  id: string;
  name?: string;
  displayName?: string;
  data?: unknown;
  error?: unknown;
  opts?: Record<string, unknown> & { timeout?: string; if?: string; function_id?: string; payload?: { data?: unknown } };
}

export type CallResult =
  | { kind: "complete"; output: unknown }
  /** retryAfterMs: a step threw RetryAfterError (the SDK sends Retry-After with the StepError). */
  | { kind: "ops"; ops: Op[]; retryAfterMs?: number }
  | { kind: "error"; retriable: boolean; retryAfterMs?: number; error: unknown; status: number };

export interface CallInput {
  url: string;
  stepId: string;
  run: Pick<RunRow, "id" | "attempt" | "stack" | "disable_immediate_execution"> & { event: EventPayload; events?: EventPayload[] | null; steps: Memo };
  maxAttempts: number;
  disableImmediateExecution: boolean;
  signingKey: string;
  timeoutMs: number;
  /** Called instead of fetching `url` when the endpoint runs in this process. */
  handler?: ServeHandler | null;
}

function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export function callRequestBody(input: CallInput): string {
  const { run } = input;
  return canonicalJson({
    event: run.event,
    events: run.events ?? [run.event],
    steps: run.steps,
    ctx: {
      run_id: run.id,
      attempt: run.attempt,
      max_attempts: input.maxAttempts,
      disable_immediate_execution: input.disableImmediateExecution,
      use_api: false,
      stack: { stack: run.stack, current: run.stack.length },
    },
    version: 2,
  });
}

export async function callFunction(input: CallInput): Promise<CallResult> {
  const url = new URL(input.url);
  url.searchParams.set("stepId", input.stepId);
  const body = callRequestBody(input);
  const request: RequestInit = {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      "x-inngest-signature": signBody(body, input.signingKey),
      "x-inngest-server-kind": "cloud",
      // Next.js would gzip the answer and fetch gunzip it: CPU on both ends for a loopback call.
      "accept-encoding": "identity",
    },
  };
  let response: Response;
  try {
    // In process, a call that outlives the timeout goes on, as it would on a server whose client gave up.
    response = input.handler
      ? await withTimeout(input.handler(new Request(url, request)), input.timeoutMs, `no answer within ${input.timeoutMs} ms`)
      : await fetch(url, { ...request, signal: AbortSignal.timeout(input.timeoutMs) });
  } catch (error) {
    return { kind: "error", retriable: true, status: 0, error: { name: "ExecutorCallError", message: `calling ${url.pathname} failed: ${(error as Error).message}` } };
  }
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = { name: "ExecutorCallError", message: `non-JSON response (${response.status}): ${text.slice(0, 200)}` };
  }
  if (response.status === 200) return { kind: "complete", output: json };
  if (response.status === 206 && Array.isArray(json)) {
    return { kind: "ops", ops: json as Op[], retryAfterMs: retryAfterMs(response.headers.get("retry-after")) };
  }
  const noRetry = response.headers.get("x-inngest-no-retry") === "true";
  return {
    kind: "error",
    retriable: !noRetry,
    retryAfterMs: retryAfterMs(response.headers.get("retry-after")),
    error: json ?? { name: "ExecutorCallError", message: `status ${response.status}` },
    status: response.status,
  };
}

/** The in-band sync: the SDK answers with its app id and function configurations. */
export async function syncFunctions(serveUrl: string, signingKey: string, timeoutMs = 30_000): Promise<{ appId: string; functions: Record<string, unknown>[] }> {
  const body = canonicalJson({ url: serveUrl });
  const response = await fetch(serveUrl, {
    method: "PUT",
    body,
    headers: {
      "content-type": "application/json",
      "x-inngest-signature": signBody(body, signingKey),
      "x-inngest-sync-kind": "in_band",
      "x-inngest-server-kind": "cloud",
    },
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  if (response.status !== 200 || response.headers.get("x-inngest-sync-kind") !== "in_band") {
    throw new Error(`Inngest in-band sync of ${serveUrl} failed with status ${response.status}: ${text.slice(0, 300)}`);
  }
  const parsed = JSON.parse(text) as { app_id?: string; functions?: Record<string, unknown>[] };
  return { appId: String(parsed.app_id), functions: parsed.functions ?? [] };
}
