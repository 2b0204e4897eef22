import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseFunctionConfig, UnsupportedFunctionConfigError, type FunctionDefinition } from "./functions";
import { syncFunctions } from "./protocol";
import { canonicalJson, generateSigningKey, signBody } from "./signing";

/**
 * parseFunctionConfig on configurations exactly as the pinned SDK produces them: the functions
 * below are served by the SDK's own serve() and read back through its in-band sync.
 */
const signingKey = generateSigningKey();
let server: http.Server;
let serveUrl: string;
let configs: Map<string, Record<string, unknown>>;

const refusedOptions = ["debounce", "rate-limit", "batch-idempotent", "priority", "cancel-on", "timeouts", "singleton"];

beforeAll(async () => {
  process.env.INNGEST_SIGNING_KEY = signingKey;
  process.env.INNGEST_EVENT_KEY = "unused-event-key";
  process.env.INNGEST_BASE_URL = "http://127.0.0.1:9/";
  delete process.env.INNGEST_DEV;
  const { Inngest } = await import("inngest");
  const { serve } = await import("inngest/node");
  const inngest = new Inngest({ id: "contract" });
  const handler = async () => "ok";
  const functions = [
    inngest.createFunction({ id: "plain", triggers: [{ event: "shop/order.placed" }] }, handler),
    inngest.createFunction({ id: "no-retries", retries: 0, triggers: [{ event: "a" }] }, handler),
    inngest.createFunction({ id: "five-retries", retries: 5, triggers: [{ event: "a" }] }, handler),
    inngest.createFunction(
      {
        id: "filtered",
        triggers: [{ event: "shop/order.placed", if: "event.data.total > 100 && event.data.currency == 'EUR'" }, { event: "shop/*" }],
      },
      handler,
    ),
    inngest.createFunction({ id: "conc-number", concurrency: 2, triggers: [{ event: "a" }] }, handler),
    inngest.createFunction({ id: "conc-object", concurrency: { limit: 1, key: "event.data.userId" }, triggers: [{ event: "a" }] }, handler),
    inngest.createFunction(
      {
        id: "conc-list",
        concurrency: [
          { limit: 5, scope: "env", key: '"openai"' },
          { limit: 1, key: "event.data.userId" },
        ],
        triggers: [{ event: "a" }],
      },
      handler,
    ),
    inngest.createFunction({ id: "throttled", throttle: { limit: 3, period: "1m", burst: 2, key: "event.data.userId" }, triggers: [{ event: "a" }] }, handler),
    inngest.createFunction({ id: "idempotent", idempotency: "event.data.orderId", triggers: [{ event: "a" }] }, handler),
    inngest.createFunction({ id: "with-failure", retries: 2, onFailure: handler, triggers: [{ event: "a" }] }, handler),
    inngest.createFunction({ id: "cron", triggers: [{ cron: "*/5 * * * *" }] }, handler),
    inngest.createFunction({ id: "bad-if", triggers: [{ event: "a", if: "event.data.name.startsWith('x')" }] }, handler),
    inngest.createFunction({ id: "bad-key", concurrency: { limit: 1, key: "size(event.data.ids)" }, triggers: [{ event: "a" }] }, handler),
    inngest.createFunction({ id: "debounce", debounce: { period: "5s" }, triggers: [{ event: "a" }] }, handler),
    inngest.createFunction({ id: "rate-limit", rateLimit: { limit: 1, period: "1m" }, triggers: [{ event: "a" }] }, handler),
    inngest.createFunction({ id: "batch", batchEvents: { maxSize: 10, timeout: "5s" }, triggers: [{ event: "a" }] }, handler),
    inngest.createFunction(
      { id: "batch-keyed", batchEvents: { maxSize: 3, timeout: "1s", key: "event.data.userId", if: "event.data.bulk == true" }, triggers: [{ event: "a" }] },
      handler,
    ),
    inngest.createFunction(
      { id: "batch-idempotent", batchEvents: { maxSize: 3, timeout: "1s" }, idempotency: "event.data.id", triggers: [{ event: "a" }] },
      handler,
    ),
    inngest.createFunction({ id: "priority", priority: { run: "event.data.priority" }, triggers: [{ event: "a" }] }, handler),
    inngest.createFunction({ id: "cancel-on", cancelOn: [{ event: "shop/order.cancelled", match: "data.id" }], triggers: [{ event: "a" }] }, handler),
    inngest.createFunction({ id: "timeouts", timeouts: { start: "1m", finish: "5m" }, triggers: [{ event: "a" }] }, handler),
    inngest.createFunction({ id: "singleton", singleton: { key: "event.data.id", mode: "skip" }, triggers: [{ event: "a" }] }, handler),
  ];
  server = http.createServer(serve({ client: inngest, functions }));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  serveUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/inngest`;
  const synced = await syncFunctions(serveUrl, signingKey);
  expect(synced.appId).toBe("contract");
  configs = new Map(synced.functions.map((f) => [String(f.id), f]));
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

function config(id: string): Record<string, unknown> & { id: string } {
  const found = configs.get(`contract-${id}`);
  if (!found) throw new Error(`no synced config for contract-${id}; got ${[...configs.keys()].join(", ")}`);
  return found as Record<string, unknown> & { id: string };
}

function parse(id: string): FunctionDefinition {
  return parseFunctionConfig(config(id));
}

describe("in-band sync (wire level)", () => {
  it("answers a signed PUT with x-inngest-sync-kind: in_band with the app's function configs", async () => {
    const body = canonicalJson({ url: serveUrl });
    const response = await fetch(serveUrl, {
      method: "PUT",
      body,
      headers: { "content-type": "application/json", "x-inngest-signature": signBody(body, signingKey), "x-inngest-sync-kind": "in_band" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-inngest-sync-kind")).toBe("in_band");
    const json = (await response.json()) as { app_id: string; functions: { id: string }[] };
    expect(json.app_id).toBe("contract");
    expect(json.functions.map((f) => f.id)).toContain("contract-plain");
  });

  it("refuses an unsigned or wrongly signed sync with 401", async () => {
    const body = canonicalJson({ url: serveUrl });
    const headers = { "content-type": "application/json", "x-inngest-sync-kind": "in_band" };
    const unsigned = await fetch(serveUrl, { method: "PUT", body, headers });
    expect(unsigned.status).toBe(401);
    const wrong = await fetch(serveUrl, { method: "PUT", body, headers: { ...headers, "x-inngest-signature": signBody(body, generateSigningKey()) } });
    expect(wrong.status).toBe(401);
    await expect(syncFunctions(serveUrl, generateSigningKey())).rejects.toThrow(/failed with status 401/);
  });

  it("refuses a signature older than the SDK's window", async () => {
    const body = canonicalJson({ url: serveUrl });
    const stale = signBody(body, signingKey, Date.now() - 10 * 60_000);
    const response = await fetch(serveUrl, {
      method: "PUT",
      body,
      headers: { "content-type": "application/json", "x-inngest-signature": stale, "x-inngest-sync-kind": "in_band" },
    });
    expect(response.status).toBe(401);
  });
});

describe("parseFunctionConfig on SDK configs", () => {
  it("reads id, name, the step URL and event triggers", () => {
    const fn = parse("plain");
    expect(fn).toMatchObject({ id: "contract-plain", name: "plain", concurrency: [], throttle: undefined, idempotency: undefined });
    expect(new URL(fn.url).searchParams.get("fnId")).toBe("contract-plain");
    expect(fn.url.startsWith(serveUrl)).toBe(true);
    expect(fn.triggers.map((t) => t.event)).toEqual(["shop/order.placed"]);
    expect(fn.triggers[0]!.matches("shop/order.placed")).toBe(true);
    expect(fn.triggers[0]!.matches("shop/order.placed.v2")).toBe(false);
  });

  it("maxAttempts = retries + 1 (SDK default: 3 retries)", () => {
    expect(config("plain").steps).not.toHaveProperty("step.retries"); // the SDK leaves the default out
    expect(parse("plain").maxAttempts).toBe(4);
    expect(parse("no-retries").maxAttempts).toBe(1);
    expect(parse("five-retries").maxAttempts).toBe(6);
  });

  it("compiles trigger if expressions and wildcard event names", () => {
    const fn = parse("filtered");
    const [filtered, wildcard] = fn.triggers;
    expect(filtered!.expression!({ event: { data: { total: 150, currency: "EUR" } } })).toBe(true);
    expect(filtered!.expression!({ event: { data: { total: 150, currency: "USD" } } })).toBe(false);
    expect(wildcard!.expression).toBeUndefined();
    expect(wildcard!.matches("shop/refund")).toBe(true);
    expect(wildcard!.matches("shopping/refund")).toBe(false);
  });

  it("reads concurrency in every form the SDK emits (number, object, list)", () => {
    // The SDK passes the option through as written: a number, one object, or a list.
    expect(config("conc-number").concurrency).toBe(2);
    expect(config("conc-object").concurrency).toEqual({ limit: 1, key: "event.data.userId" });
    expect(parse("conc-number").concurrency).toEqual([{ limit: 2, scope: "fn", key: undefined }]);
    const [keyed] = parse("conc-object").concurrency;
    expect(keyed).toMatchObject({ limit: 1, scope: "fn" });
    expect(keyed!.key!({ event: { data: { userId: "u1" } } })).toBe("u1");
    const list = parse("conc-list").concurrency;
    expect(list.map((c) => [c.limit, c.scope])).toEqual([
      [5, "env"],
      [1, "fn"],
    ]);
    expect(list[0]!.key!({ event: {} })).toBe("openai");
  });

  it("reads throttle with period, burst and key", () => {
    const { throttle } = parse("throttled");
    expect(throttle).toMatchObject({ limit: 3, periodMs: 60_000, burst: 2 });
    expect(throttle!.key!({ event: { data: { userId: "u9" } } })).toBe("u9");
  });

  it("compiles the idempotency expression", () => {
    const { idempotency } = parse("idempotent");
    expect(idempotency!({ event: { data: { orderId: "o-5" } } })).toBe("o-5");
  });

  it("reads batchEvents: size, timeout, key and condition", () => {
    expect(parse("batch").batch).toMatchObject({ maxSize: 10, timeoutMs: 5000 });
    const { batch } = parse("batch-keyed");
    expect(batch).toMatchObject({ maxSize: 3, timeoutMs: 1000 });
    expect(batch!.key!({ event: { data: { userId: "u1" } } })).toBe("u1");
    expect(batch!.condition!({ event: { data: { bulk: true } } })).toBe(true);
    expect(batch!.condition!({ event: { data: { bulk: false } } })).toBe(false);
    const raw = config("plain");
    expect(() => parseFunctionConfig({ ...raw, batchEvents: { maxSize: 0, timeout: "1s" } })).toThrow(/a batchEvents option it cannot read/);
    expect(() => parseFunctionConfig({ ...raw, batchEvents: { maxSize: 5, timeout: "later" } })).toThrow(/a batchEvents option it cannot read/);
  });

  it("reads the onFailure companion function the SDK adds", () => {
    expect(parse("with-failure").maxAttempts).toBe(3);
    const failure = parse("with-failure-failure");
    expect(failure.maxAttempts).toBe(2); // the SDK gives failure handlers 1 retry
    expect(failure.triggers).toHaveLength(1);
    const [trigger] = failure.triggers;
    expect(trigger!.event).toBe("inngest/function.failed");
    expect(trigger!.expression!({ event: { data: { function_id: "contract-with-failure" } } })).toBe(true);
    expect(trigger!.expression!({ event: { data: { function_id: "contract-plain" } } })).toBe(false);
  });

  it("parses every supported function of the app", () => {
    const refused = new Set(["cron", "bad-if", "bad-key", ...refusedOptions].map((id) => `contract-${id}`));
    for (const [id, raw] of configs) {
      if (refused.has(id)) continue;
      expect(() => parseFunctionConfig(raw as Record<string, unknown> & { id: string }), id).not.toThrow();
    }
  });
});

describe("unsupported options are refused, naming the function and the option", () => {
  const cases: [string, string, RegExp][] = [
    ["debounce", "debounce", /debounce/],
    ["rate-limit", "rateLimit", /rate limiting/],
    ["batch-idempotent", "batchEvents", /batchEvents together with idempotency/],
    ["priority", "priority", /run priority/],
    ["cancel-on", "cancel", /cancelOn/],
    ["timeouts", "timeouts", /start\/finish timeouts/],
    ["singleton", "singleton", /singleton runs/],
    ["cron", "triggers", /a cron trigger/],
    ["bad-if", "triggers", /unsupported trigger expression.*function calls are not supported/],
    ["bad-key", "concurrency", /unsupported concurrency key expression.*unsupported identifier size/],
  ];
  it.each(cases)("%s (%s)", (id, key, message) => {
    const raw = config(id);
    expect(raw[key], `the SDK config of ${id} carries ${key}`).toBeDefined();
    let error: unknown;
    try {
      parseFunctionConfig(raw);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UnsupportedFunctionConfigError);
    const text = (error as Error).message;
    expect(text).toContain(`"contract-${id}"`);
    expect(text).toMatch(message);
    expect(text).toMatch(/embedded executor does not implement/);
  });

  it("refuses options it has never heard of instead of ignoring them", () => {
    expect(() => parseFunctionConfig({ ...config("plain"), someFutureOption: { x: 1 } })).toThrow(/"contract-plain" uses the option "someFutureOption"/);
  });

  it("refuses step layouts other than one HTTP step", () => {
    const raw = config("plain");
    const steps = raw.steps as Record<string, unknown>;
    expect(() => parseFunctionConfig({ ...raw, steps: { ...steps, other: steps.step } })).toThrow(/a step layout other than one HTTP step/);
    expect(() => parseFunctionConfig({ ...raw, steps: {} })).toThrow(/a step layout other than one HTTP step/);
  });

  it("refuses unreadable throttle and concurrency values", () => {
    const raw = config("plain");
    expect(() => parseFunctionConfig({ ...raw, throttle: { limit: 1, period: "soon" } })).toThrow(/a throttle it cannot read/);
    expect(() => parseFunctionConfig({ ...raw, concurrency: [{ limit: 0 }] })).toThrow(/concurrency limit below 1/);
    expect(() => parseFunctionConfig({ ...raw, concurrency: [{ limit: 1, scope: "account" }] })).toThrow(/account-scoped concurrency without a key/);
  });
});
