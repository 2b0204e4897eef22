import { Inngest, NonRetriableError } from "inngest";

/**
 * The SDK functions the executor contract tests run (served by the harness in test-support.ts), and
 * the side effects they record: module-level counters and records, one set per test file.
 */

// ---- side effects recorded by the functions ----
const counts = new Map<string, number>();
const bump = (key: string): number => {
  const n = (counts.get(key) ?? 0) + 1;
  counts.set(key, n);
  return n;
};
export const count = (key: string): number => counts.get(key) ?? 0;
const records = new Map<string, unknown[]>();
const record = (key: string, value: unknown): void => {
  records.set(key, [...(records.get(key) ?? []), value]);
};
export const recorded = <T>(key: string): T[] => (records.get(key) ?? []) as T[];
export const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Interval {
  tag: string;
  key?: string;
  n: number;
  start: number;
  end: number;
}
/** Runs a step body of `ms` and records when it started and ended. */
async function timed(key: string, interval: Omit<Interval, "start" | "end">, ms: number): Promise<void> {
  const start = Date.now();
  await delay(ms);
  record(key, { ...interval, start, end: Date.now() });
}
export const overlaps = (a: Interval, b: Interval) => a.start < b.end && b.start < a.end;

// ---- the functions under test ----
let invokeChild: ReturnType<typeof defineChild>;
function defineChild(client: Inngest) {
  return client.createFunction({ id: "invoke-child", retries: 0, triggers: [{ event: "test/never" }] }, async ({ event, step }) => {
    const data = event.data as { tag: string; x: number; fail?: boolean };
    const doubled = await step.run("double", () => {
      bump(`invoke-child:${data.tag}`);
      return data.x * 2;
    });
    if (data.fail) throw new NonRetriableError(`child refuses ${data.x}`);
    return { doubled };
  });
}

export function defineFunctions(client: Inngest) {
  invokeChild = defineChild(client);
  return [
    client.createFunction({ id: "memo", triggers: [{ event: "test/memo" }] }, async ({ event, step }) => {
      const tag = event.data.tag as string;
      bump(`memo-handler:${tag}`);
      const a = await step.run("a", () => {
        bump(`memo-a:${tag}`);
        return 1;
      });
      const b = await step.run("b", () => {
        bump(`memo-b:${tag}`);
        return a + 1;
      });
      const c = await step.run("c", () => {
        bump(`memo-c:${tag}`);
        return { sum: a + b, tag };
      });
      return { c, total: a + b + c.sum };
    }),

    client.createFunction({ id: "flaky", retries: 3, triggers: [{ event: "test/flaky" }] }, async ({ event, step, attempt }) => {
      const tag = event.data.tag as string;
      const value = await step.run("flaky-step", () => {
        const n = bump(`flaky:${tag}`);
        record(`flaky-attempts:${tag}`, attempt);
        if (n < 3) throw new Error(`flaky failure ${n}`);
        return `ok after ${n}`;
      });
      return value;
    }),

    client.createFunction(
      {
        id: "always-fails",
        retries: 2,
        triggers: [{ event: "test/always-fails" }],
        onFailure: async ({ event, error }) => {
          const tag = (event.data.event.data as { tag: string }).tag;
          bump(`always-fails-onfailure:${tag}`);
          record(`always-fails-onfailure:${tag}`, { name: error.name, message: error.message });
        },
      },
      async ({ event, step, attempt }) => {
        const tag = event.data.tag as string;
        await step.run("doomed", () => {
          bump(`always-fails:${tag}`);
          record(`always-fails-attempts:${tag}`, attempt);
          throw new Error(`doomed ${tag}`);
        });
      },
    ),

    client.createFunction(
      {
        id: "non-retriable",
        retries: 4,
        triggers: [{ event: "test/non-retriable" }],
        onFailure: async ({ event, error }) => {
          const tag = (event.data.event.data as { tag: string }).tag;
          bump(`non-retriable-onfailure:${tag}`);
          record(`non-retriable-onfailure:${tag}`, error.message);
        },
      },
      async ({ event, step }) => {
        const tag = event.data.tag as string;
        if (event.data.outside) {
          bump(`non-retriable:${tag}`);
          throw new NonRetriableError(`no point retrying ${tag}`);
        }
        await step.run("refuse", () => {
          bump(`non-retriable:${tag}`);
          throw new NonRetriableError(`no point retrying ${tag}`);
        });
      },
    ),

    client.createFunction({ id: "sleeper", triggers: [{ event: "test/sleep" }] }, async ({ event, step }) => {
      const tag = event.data.tag as string;
      const before = await step.run("before", () => {
        bump(`sleeper-before:${tag}`);
        return Date.now();
      });
      await step.sleep("nap", "1s");
      const after = await step.run("after", () => {
        bump(`sleeper-after:${tag}`);
        return Date.now();
      });
      return { before, after };
    }),

    client.createFunction({ id: "sleep-until", triggers: [{ event: "test/sleep-until" }] }, async ({ event, step }) => {
      const tag = event.data.tag as string;
      const target = await step.run("target", () => Date.now() + 1_200);
      await step.sleepUntil("until", new Date(target));
      const after = await step.run("after", () => {
        bump(`sleep-until-after:${tag}`);
        return Date.now();
      });
      return { target, after };
    }),

    client.createFunction({ id: "sender", triggers: [{ event: "test/send" }] }, async ({ event, step }) => {
      const tag = event.data.tag as string;
      const { ids } = await step.sendEvent("fan-out", { name: "test/sent", data: { tag, from: "sender" } });
      return { ids };
    }),

    client.createFunction({ id: "receiver", triggers: [{ event: "test/sent" }] }, async ({ event, step }) => {
      await step.run("receive", () => {
        bump(`receiver:${event.data.tag as string}`);
        record(`receiver:${event.data.tag as string}`, event.data);
      });
      return "received";
    }),

    client.createFunction({ id: "dedupe", triggers: [{ event: "test/dedupe" }] }, async ({ event, step }) => {
      await step.run("count", () => bump(`dedupe:${event.data.tag as string}`));
    }),

    client.createFunction({ id: "waiter", triggers: [{ event: "test/wait.start" }] }, async ({ event, step }) => {
      const tag = event.data.tag as string;
      const approval = await step.waitForEvent("approval", {
        event: "test/wait.approve",
        timeout: (event.data.timeout as string | undefined) ?? "10s",
        if: "async.data.id == event.data.id",
      });
      await step.run("after-wait", () => bump(`waiter-after:${tag}`));
      return { approval };
    }),

    client.createFunction({ id: "waiter-until", triggers: [{ event: "test/wait-until.start" }] }, async ({ event, step }) => {
      const approval = await step.waitForEvent("approval", {
        event: "test/wait.approve",
        timeout: new Date(event.data.until as number), // the SDK sends an ISO date
        if: "async.data.id == event.data.id",
      });
      return { approval };
    }),

    client.createFunction({ id: "waiter-unsupported", retries: 1, triggers: [{ event: "test/wait-unsupported.start" }] }, async ({ event, step }) => {
      bump(`waiter-unsupported:${event.data.tag as string}`);
      const approval = await step.waitForEvent("approval", { event: "test/wait.approve", timeout: "5s", if: "size(async.data.items) > 0" });
      return { approval };
    }),

    client.createFunction({ id: "sleep-zero", triggers: [{ event: "test/sleep-zero" }] }, async ({ event, step }) => {
      await step.sleep("zero", Number(event.data.ms ?? 0)); // the SDK sends an empty duration for 0
      return "woke";
    }),

    client.createFunction({ id: "parallel-sleeps", triggers: [{ event: "test/parallel-sleeps" }] }, async ({ step }) => {
      const started = await step.run("started", () => Date.now());
      await Promise.all([step.sleep("a", "1s"), step.sleep("b", "1s")]);
      const ended = await step.run("ended", () => Date.now());
      return { elapsed: ended - started };
    }),

    invokeChild,
    client.createFunction({ id: "invoke-parent", triggers: [{ event: "test/invoke" }] }, async ({ event, step }) => {
      const { tag, x, fail } = event.data as { tag: string; x: number; fail?: boolean };
      try {
        const result = await step.invoke("call-child", { function: invokeChild, data: { tag, x, fail } });
        return { result };
      } catch (error) {
        return { caught: { name: (error as Error).name, message: (error as Error).message } };
      }
    }),

    client.createFunction({ id: "parallel", triggers: [{ event: "test/parallel" }] }, async ({ event, step }) => {
      const tag = event.data.tag as string;
      const results = await Promise.all(
        [1, 2, 3].map((n) =>
          step.run(`p${n}`, async () => {
            bump(`parallel-${n}:${tag}`);
            await delay(20);
            return n * 10;
          }),
        ),
      );
      const after = await step.run("after", () => {
        bump(`parallel-after:${tag}`);
        return results.reduce((a, b) => a + b, 0);
      });
      return { results, after };
    }),

    client.createFunction({ id: "serial", concurrency: { limit: 1 }, triggers: [{ event: "test/serial" }] }, async ({ event, step }) => {
      const { tag, n } = event.data as { tag: string; n: number };
      await step.run("one", () => timed(`serial:${tag}`, { tag, n }, 80));
      await step.run("two", () => timed(`serial:${tag}`, { tag, n }, 80));
    }),

    client.createFunction(
      { id: "keyed", concurrency: { limit: 1, key: "event.data.key" }, triggers: [{ event: "test/keyed" }] },
      async ({ event, step }) => {
        const { tag, n, key } = event.data as { tag: string; n: number; key: string };
        await step.run("work", () => timed(`keyed:${tag}`, { tag, n, key }, 250));
      },
    ),

    client.createFunction({ id: "throttled", throttle: { limit: 1, period: "1s" }, triggers: [{ event: "test/throttled" }] }, async ({ event, step }) => {
      const { tag, n } = event.data as { tag: string; n: number };
      await step.run("start", () => record(`throttled:${tag}`, { n, at: Date.now() }));
    }),

    client.createFunction({ id: "filtered", triggers: [{ event: "test/filtered", if: "event.data.amount > 10 && event.data.currency == 'EUR'" }] }, async ({ event, step }) => {
      await step.run("count", () => bump(`filtered:${event.data.tag as string}:${event.data.amount as number}`));
    }),

    client.createFunction({ id: "idempotent", idempotency: "event.data.orderId", triggers: [{ event: "test/idempotent" }] }, async ({ event, step }) => {
      await step.run("count", () => bump(`idempotent:${event.data.tag as string}:${event.data.orderId as string}`));
    }),

    client.createFunction({ id: "durable-sleep", triggers: [{ event: "test/durable-sleep" }] }, async ({ event, step }) => {
      const tag = event.data.tag as string;
      await step.run("a", () => bump(`durable-sleep-a:${tag}`));
      await step.sleep("nap", "1s");
      await step.run("b", () => bump(`durable-sleep-b:${tag}`));
      return "done";
    }),

    client.createFunction({ id: "durable-steps", triggers: [{ event: "test/durable-steps" }] }, async ({ event, step }) => {
      const { tag, slowMs } = event.data as { tag: string; slowMs: number };
      const one = await step.run("one", () => bump(`durable-steps-one:${tag}`));
      const two = await step.run("two", async () => {
        bump(`durable-steps-two:${tag}`);
        await delay(slowMs);
        bump(`durable-steps-two-end:${tag}`);
        return 2;
      });
      const three = await step.run("three", () => bump(`durable-steps-three:${tag}`));
      return { one, two, three };
    }),

    client.createFunction(
      { id: "batched", batchEvents: { maxSize: 3, timeout: "1s", key: "event.data.tag" }, triggers: [{ event: "test/batched" }] },
      async ({ events, step }) => {
        const { tag } = events[0]!.data as { tag: string };
        const ns = events.map((e) => (e.data as { n: number }).n);
        await step.run("record", () => record(`batched:${tag}`, ns));
        return { ns };
      },
    ),

    client.createFunction(
      { id: "batched-if", batchEvents: { maxSize: 10, timeout: "1s", if: "event.data.bulk == true" }, triggers: [{ event: "test/batched-if" }] },
      async ({ events, step }) => {
        const { tag } = events[0]!.data as { tag: string };
        const ns = events.map((e) => (e.data as { n: number }).n);
        await step.run("record", () => record(`batched-if:${tag}`, ns));
        return { ns };
      },
    ),

    client.createFunction({ id: "shared", triggers: [{ event: "test/shared" }] }, async ({ event, step }) => {
      const { tag, n } = event.data as { tag: string; n: number };
      const steps = [];
      for (const name of ["s1", "s2", "s3"]) {
        steps.push(
          await step.run(name, async () => {
            bump(`shared:${tag}:${n}:${name}`);
            await delay(5 + Math.floor(Math.random() * 20));
            return name;
          }),
        );
      }
      return { n, steps };
    }),
  ];
}
