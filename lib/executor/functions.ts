import { parseDuration } from "./durations";
import { compileExpression, ExpressionError, type CompiledExpression } from "./expressions";

/**
 * Function configurations from an in-band sync, checked against what the embedded executor
 * implements. An option it does not implement is refused with a clear message (the sync fails and
 * the server does not start) rather than silently ignored.
 */
export interface Trigger {
  event: string;
  matches: (name: string) => boolean;
  expression?: CompiledExpression;
}

export interface ConcurrencyLimit {
  limit: number;
  /** fn: per function; env/account: shared by every function using the same key. */
  scope: "fn" | "env" | "account";
  key?: CompiledExpression;
}

export interface FunctionDefinition {
  id: string;
  /** Display name (the SDK's `name`, else the id). */
  name: string;
  url: string;
  triggers: Trigger[];
  /** Total attempts per step (retries + 1). */
  maxAttempts: number;
  concurrency: ConcurrencyLimit[];
  throttle?: { limit: number; periodMs: number; burst: number; key?: CompiledExpression };
  idempotency?: CompiledExpression;
  /** batchEvents: up to maxSize events per run, started when full or timeoutMs after its first event. */
  batch?: { maxSize: number; timeoutMs: number; key?: CompiledExpression; condition?: CompiledExpression };
}

export class UnsupportedFunctionConfigError extends Error {
  override readonly name = "UnsupportedFunctionConfigError";
}

const SUPPORTED_KEYS = new Set(["id", "name", "triggers", "steps", "concurrency", "throttle", "idempotency", "batchEvents"]);
const REFUSED_EXPLANATIONS: Record<string, string> = {
  debounce: "debounce",
  rateLimit: "rate limiting (use throttle)",
  priority: "run priority",
  cancel: "cancelOn",
  timeouts: "start/finish timeouts",
  singleton: "singleton runs",
};

function refuse(fnId: string, what: string): never {
  throw new UnsupportedFunctionConfigError(
    `Inngest function "${fnId}" uses ${what}, which the embedded executor does not implement. ` +
      `Remove it, or run against Inngest (set INNGEST_SIGNING_KEY and INNGEST_EVENT_KEY, plus INNGEST_BASE_URL for self-hosted).`,
  );
}

function compile(fnId: string, what: string, source: string): CompiledExpression {
  try {
    return compileExpression(source);
  } catch (error) {
    if (error instanceof ExpressionError) refuse(fnId, `an unsupported ${what} expression (${error.message})`);
    throw error;
  }
}

function eventMatcher(pattern: string): (name: string) => boolean {
  if (pattern.endsWith("*")) {
    const prefix = pattern.slice(0, -1);
    return (name) => name.startsWith(prefix);
  }
  return (name) => name === pattern;
}

type RawConfig = Record<string, unknown> & { id: string; name?: string };

export function parseFunctionConfig(raw: RawConfig): FunctionDefinition {
  const fnId = String(raw.id);
  for (const key of Object.keys(raw)) {
    if (raw[key] === undefined || raw[key] === null) continue;
    if (!SUPPORTED_KEYS.has(key)) refuse(fnId, REFUSED_EXPLANATIONS[key] ?? `the option "${key}"`);
  }
  const steps = raw.steps as Record<string, { runtime?: { url?: string }; retries?: { attempts?: number } }> | undefined;
  const step = steps?.step;
  if (!step?.runtime?.url || Object.keys(steps ?? {}).length !== 1) refuse(fnId, "a step layout other than one HTTP step");

  const triggers = ((raw.triggers ?? []) as Record<string, unknown>[]).map((trigger): Trigger => {
    if (typeof trigger.cron === "string") refuse(fnId, "a cron trigger");
    if (typeof trigger.event !== "string") refuse(fnId, `a trigger it cannot read (${JSON.stringify(trigger)})`);
    const expression = typeof trigger.expression === "string" ? compile(fnId, "trigger", trigger.expression) : undefined;
    return { event: trigger.event, matches: eventMatcher(trigger.event), expression };
  });

  // The SDK passes the option through as written: a number, one object, or a list of objects.
  const rawConcurrency = raw.concurrency ?? [];
  const concurrencyList = (
    Array.isArray(rawConcurrency) ? rawConcurrency : [typeof rawConcurrency === "number" ? { limit: rawConcurrency } : rawConcurrency]
  ) as Record<string, unknown>[];
  const concurrency = concurrencyList.map((c): ConcurrencyLimit => {
    const scope = (c.scope ?? "fn") as ConcurrencyLimit["scope"];
    if (!["fn", "env", "account"].includes(scope)) refuse(fnId, `concurrency scope "${String(c.scope)}"`);
    if (typeof c.limit !== "number" || c.limit < 1) refuse(fnId, "a concurrency limit below 1");
    if (scope !== "fn" && typeof c.key !== "string") refuse(fnId, `${scope}-scoped concurrency without a key`);
    return { limit: c.limit, scope, key: typeof c.key === "string" ? compile(fnId, "concurrency key", c.key) : undefined };
  });

  let throttle: FunctionDefinition["throttle"];
  if (raw.throttle) {
    const t = raw.throttle as Record<string, unknown>;
    const periodMs = typeof t.period === "string" ? parseDuration(t.period) : undefined;
    if (typeof t.limit !== "number" || t.limit < 1 || !periodMs) refuse(fnId, `a throttle it cannot read (${JSON.stringify(t)})`);
    throttle = {
      limit: t.limit,
      periodMs,
      burst: typeof t.burst === "number" ? t.burst : 1,
      key: typeof t.key === "string" ? compile(fnId, "throttle key", t.key) : undefined,
    };
  }

  const idempotency = typeof raw.idempotency === "string" ? compile(fnId, "idempotency", raw.idempotency) : undefined;
  const batch = raw.batchEvents ? parseBatch(fnId, raw.batchEvents as Record<string, unknown>) : undefined;
  // As Inngest: a batch has no single event an idempotency key could be taken from.
  if (batch && idempotency) refuse(fnId, "batchEvents together with idempotency");
  const attempts = step.retries?.attempts;
  return {
    id: fnId,
    name: raw.name ?? fnId,
    url: step.runtime.url,
    triggers,
    maxAttempts: (typeof attempts === "number" ? attempts : 3) + 1,
    concurrency,
    throttle,
    idempotency,
    batch,
  };
}

function parseBatch(fnId: string, b: Record<string, unknown>): NonNullable<FunctionDefinition["batch"]> {
  const timeoutMs = typeof b.timeout === "string" ? parseDuration(b.timeout) : undefined;
  if (typeof b.maxSize !== "number" || !Number.isInteger(b.maxSize) || b.maxSize < 1 || !timeoutMs) {
    refuse(fnId, `a batchEvents option it cannot read (${JSON.stringify(b)})`);
  }
  return {
    maxSize: b.maxSize,
    timeoutMs,
    key: typeof b.key === "string" ? compile(fnId, "batch key", b.key) : undefined,
    condition: typeof b.if === "string" ? compile(fnId, "batch condition", b.if) : undefined,
  };
}
