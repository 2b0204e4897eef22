import crypto from "node:crypto";
import { Inngest } from "inngest";
import { serve } from "inngest/node";
import { describe, expect, it } from "vitest";
import { generateSigningKey } from "./signing";
import { count, delay } from "./test-functions";
import {
  newTag,
  pool,
  e1,
  executorLog,
  newExecutor,
  listen,
  type RunRecord,
  runsOf,
  describeRuns,
  eventually,
  finishedRun,
  send,
  useExecutorHarness,
} from "./test-support";

/**
 * Durability: runs survive executors that stop or lose their lease, and several executors share one
 * database.
 * Runs against the embedded executor contract harness (test-support.ts).
 */
useExecutorHarness();

describe("durability", () => {
  it("a run sleeping when its executor stops is completed by a new executor; each step ran once", async () => {
    const tag = newTag("durable-sleep");
    await send("test/durable-sleep", { tag });
    const sleeping = await eventually("the run to sleep", async () => {
      const runs = await runsOf("durable-sleep", tag);
      return runs[0] && runs[0].status === "queued" && runs[0].next_at.getTime() > Date.now() && count(`durable-sleep-a:${tag}`) === 1 ? runs[0] : undefined;
    });
    await e1.stop();
    expect((await runsOf("durable-sleep", tag))[0]!.status).toBe("queued");

    const e2 = newExecutor();
    await e2.start();
    const run = await finishedRun("durable-sleep", tag);
    expect(run.id).toBe(sleeping.id);
    expect(run.status, describeRuns([run])).toBe("completed");
    expect([count(`durable-sleep-a:${tag}`), count(`durable-sleep-b:${tag}`)]).toEqual([1, 1]);
    await e2.stop();
  });

  it("stopping an executor in the middle of a step lets the step finish; a new executor completes the run", async () => {
    const tag = newTag("durable-steps");
    const e3 = newExecutor();
    await e3.start();
    await e3.sendEvents([{ id: crypto.randomUUID(), name: "test/durable-steps", data: { tag, slowMs: 400 }, ts: Date.now() }]);
    await eventually("step two to start", async () => count(`durable-steps-two:${tag}`) === 1);
    await e3.stop();
    expect(count(`durable-steps-two-end:${tag}`)).toBe(1);
    const e4 = newExecutor();
    await e4.start();
    const run = await finishedRun("durable-steps", tag);
    expect(run.status, describeRuns([run])).toBe("completed");
    expect(run.output).toEqual({ one: 1, two: 2, three: 1 });
    expect(["one", "two", "three"].map((s) => count(`durable-steps-${s}:${tag}`))).toEqual([1, 1, 1]);
    await e4.stop();
  });

  it("a process that lost its lease cannot overwrite the run (fencing)", async () => {
    const tag = newTag("fencing");
    const e5 = newExecutor();
    await e5.start();
    // Step two outlives the lease (1 s); the executor is abandoned mid-step, like a paused process.
    await e5.sendEvents([{ id: crypto.randomUUID(), name: "test/durable-steps", data: { tag, slowMs: 2_000 }, ts: Date.now() }]);
    await eventually("step two to start", async () => count(`durable-steps-two:${tag}`) === 1);
    await e5.stop(0);
    const e6 = newExecutor();
    await e6.start();
    const run = await finishedRun("durable-steps", tag, 15_000);
    expect(run.status, describeRuns([run])).toBe("completed");
    // The abandoned call finishes later and must not overwrite what the new owner saved.
    await eventually("the abandoned step to end", async () => count(`durable-steps-two-end:${tag}`) === 2, 5_000);
    await delay(200);
    const [after] = await runsOf("durable-steps", tag);
    expect(after!.status).toBe("completed");
    expect(after!.output).toEqual(run.output);
    // At-least-once for the step in flight when its lease was lost, exactly once for the others.
    expect(["one", "two", "three"].map((s) => count(`durable-steps-${s}:${tag}`))).toEqual([1, 2, 1]);
    expect(executorLog.some((line) => line.includes("lease lost"))).toBe(true);
    await e6.stop();
  });

  it("two executors on one database: 20 runs complete, every step ran exactly once", async () => {
    const tag = newTag("shared");
    const calls = { a: new Set<string>(), b: new Set<string>() };
    const collect = (into: Set<string>) => (line: string) => {
      const runId = /^run (\S+) contract-shared /.exec(line)?.[1];
      if (runId) into.add(runId);
      else executorLog.push(line);
    };
    // debug: per-call log lines name the run, so they tell which executor ran it.
    const a = newExecutor({ maxConcurrentRuns: 4, debug: true, log: collect(calls.a) });
    const b = newExecutor({ maxConcurrentRuns: 4, debug: true, log: collect(calls.b) });
    await Promise.all([a.start(), b.start()]);
    const events = Array.from({ length: 20 }, (_, n) => ({ id: crypto.randomUUID(), name: "test/shared", data: { tag, n }, ts: Date.now() }));
    await Promise.all([a.sendEvents(events.slice(0, 10)), b.sendEvents(events.slice(10))]);
    const runs = await eventually(
      "20 shared runs to complete",
      async () => {
        const all = await runsOf("shared", tag);
        return all.length === 20 && all.every((r) => r.status === "completed") ? all : undefined;
      },
      20_000,
      async () => describeRuns(await runsOf("shared", tag)),
    );
    for (let n = 0; n < 20; n++) {
      expect(["s1", "s2", "s3"].map((s) => count(`shared:${tag}:${n}:${s}`)), `run ${n}`).toEqual([1, 1, 1]);
    }
    expect(runs.map((r) => (r.output as { n: number }).n).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect(calls.a.size, "executor A ran none of the runs").toBeGreaterThan(0);
    expect(calls.b.size, "executor B ran none of the runs").toBeGreaterThan(0);
    await Promise.all([a.stop(), b.stop()]);
  });

  it("an executor whose signing key the SDK does not accept gets 401s: the run never completes", async () => {
    // The SDK side rotates its key after the executor synced (or the executor is misconfigured).
    const sigTag = newTag("sig");
    const hits: string[] = [];
    const define = (client: Inngest) =>
      client.createFunction({ id: "target", retries: 1, triggers: [{ event: "test/sig" }] }, async ({ event, step }) => {
        await step.run("body", () => hits.push(event.data.tag as string));
        return "should not happen";
      });
    const accepting = new Inngest({ id: "contract-sig" });
    const rejecting = new Inngest({ id: "contract-sig", signingKey: generateSigningKey() });
    const handlers = {
      accepting: serve({ client: accepting, functions: [define(accepting)] }),
      rejecting: serve({ client: rejecting, functions: [define(rejecting)] }),
    };
    let current = handlers.accepting;
    const statuses: number[] = [];
    const sigUrl = await listen((req, res) => {
      res.on("finish", () => statuses.push(res.statusCode));
      return current(req, res);
    });
    const executor = newExecutor({ serveUrl: sigUrl });
    await executor.start();
    current = handlers.rejecting;
    statuses.length = 0;
    await executor.sendEvents([{ id: crypto.randomUUID(), name: "test/sig", data: { tag: sigTag }, ts: Date.now() }]);
    const { rows } = await eventually(
      "the run to fail",
      async () => {
        const result = await pool.query<RunRecord>(`SELECT * FROM executor_runs WHERE function_id = 'contract-sig-target' AND event->'data'->>'tag' = $1`, [sigTag]);
        return result.rows[0]?.status === "failed" ? result : undefined;
      },
      30_000, // generous: the whole unit suite runs in parallel on two cores
    );
    await executor.stop();
    expect(hits).toEqual([]);
    expect(statuses.length).toBe(2); // retries: 1 → two attempts, both refused
    expect(new Set(statuses)).toEqual(new Set([401]));
    expect(JSON.stringify(rows[0]!.error)).toMatch(/Unauthorized/);
  });
});
