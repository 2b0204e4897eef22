import { describe, expect, it } from "vitest";
import { count, delay } from "./test-functions";
import { newTag, pool, setSlowStatement, runsOf, describeRuns, eventually, finishedRun, send, useExecutorHarness } from "./test-support";

/**
 * The ops that block a run: step.sleep / sleepUntil, step.waitForEvent and step.invoke.
 * Runs against the embedded executor contract harness (test-support.ts).
 */
useExecutorHarness();

describe("embedded executor against the SDK's serve()", () => {
  it("step.sleep('1s'): the next step runs at least 1 s later", async () => {
    const tag = newTag("sleep");
    await send("test/sleep", { tag });
    const run = await finishedRun("sleeper", tag);
    expect(run.status, describeRuns([run])).toBe("completed");
    const { before, after } = run.output as { before: number; after: number };
    expect(after - before).toBeGreaterThanOrEqual(1000);
    expect(after - before).toBeLessThan(5000);
    expect([count(`sleeper-before:${tag}`), count(`sleeper-after:${tag}`)]).toEqual([1, 1]);
  });

  it("step.sleepUntil: the next step runs at or after the date", async () => {
    const tag = newTag("sleep-until");
    await send("test/sleep-until", { tag });
    const run = await finishedRun("sleep-until", tag);
    expect(run.status, describeRuns([run])).toBe("completed");
    const { target, after } = run.output as { target: number; after: number };
    expect(after).toBeGreaterThanOrEqual(target);
    expect(count(`sleep-until-after:${tag}`)).toBe(1);
  });

  describe("step.waitForEvent", () => {
    const waitRows = async (runId: string) => (await pool.query(`SELECT * FROM executor_waits WHERE run_id = $1`, [runId])).rows;

    it("resumes with the matching event only", async () => {
      const tag = newTag("wait");
      const id = `order-${tag}`;
      await send("test/wait.start", { tag, id });
      const waiting = await eventually("the run to wait", async () => (await runsOf("waiter", tag)).find((r) => r.status === "waiting"));
      expect(await waitRows(waiting.id)).toHaveLength(1);
      await send("test/wait.approve", { id: "someone-else" });
      await send("test/wait.other", { id });
      await delay(300);
      const still = await runsOf("waiter", tag);
      expect(still[0]!.status, describeRuns(still)).toBe("waiting");
      expect(count(`waiter-after:${tag}`)).toBe(0);
      const [approvalId] = await send("test/wait.approve", { id, by: "boss" });
      const run = await finishedRun("waiter", tag);
      expect(run.status, describeRuns([run])).toBe("completed");
      expect(run.output).toMatchObject({ approval: { id: approvalId, name: "test/wait.approve", data: { id, by: "boss" } } });
      expect(count(`waiter-after:${tag}`)).toBe(1);
      expect(await waitRows(run.id)).toHaveLength(0);
    });

    it("resolves with null on timeout", async () => {
      const tag = newTag("wait-timeout");
      const started = Date.now();
      await send("test/wait.start", { tag, id: `order-${tag}`, timeout: "1s" });
      const run = await finishedRun("waiter", tag);
      expect(run.status, describeRuns([run])).toBe("completed");
      expect(run.output).toEqual({ approval: null });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
      expect(await waitRows(run.id)).toHaveLength(0);
    });

    it("resumes with an event sent as soon as the wait is visible (no lost wakeup)", async () => {
      const tag = newTag("wait-race");
      const id = `order-${tag}`;
      // A slow database right after the wait row is written: the event must not find a wait whose
      // run cannot be resumed yet (it would be consumed, and the run would time out with null).
      setSlowStatement((sql) => (sql.startsWith("INSERT INTO executor_waits") ? 500 : undefined));
      try {
        await send("test/wait.start", { tag, id, timeout: "4s" });
        await eventually("the wait to be visible to other connections", async () => {
          const { rows } = await pool.query(`SELECT 1 FROM executor_waits WHERE event_name = 'test/wait.approve' AND run_event->'data'->>'tag' = $1`, [tag]);
          return rows.length > 0;
        });
        await send("test/wait.approve", { id });
      } finally {
        setSlowStatement(undefined);
      }
      const run = await finishedRun("waiter", tag);
      expect(run.status, describeRuns([run])).toBe("completed");
      expect(run.output, "the matching event was consumed but the run timed out").toMatchObject({ approval: { data: { id } } });
    });
  });

  describe("SDK edge cases", () => {
    it("waitForEvent with a Date timeout waits until that date", async () => {
      const tag = newTag("wait-until");
      const id = `order-${tag}`;
      await send("test/wait-until.start", { tag, id, until: Date.now() + 3_000 });
      await eventually("the wait to be visible", async () => {
        const { rows } = await pool.query(`SELECT 1 FROM executor_waits WHERE run_event->'data'->>'tag' = $1`, [tag]);
        return rows.length > 0 || (await runsOf("waiter-until", tag))[0]?.status === "completed";
      });
      await send("test/wait.approve", { id });
      const run = await finishedRun("waiter-until", tag);
      expect(run.output).toMatchObject({ approval: { data: { id } } });
    });

    it("waitForEvent with an unsupported if expression fails the run with a clear error", async () => {
      const tag = newTag("wait-unsupported");
      await send("test/wait-unsupported.start", { tag });
      const run = await finishedRun("waiter-unsupported", tag, 5_000);
      expect(run.status, describeRuns([run])).toBe("failed");
      expect(run.error).toMatchObject({ name: "UnsupportedExpression", message: expect.stringMatching(/"approval".*unsupported identifier size/) });
      expect(count(`waiter-unsupported:${tag}`)).toBe(1); // refused at once, not retried
    });

    it("step.sleep(0) continues (the SDK sends an empty duration)", async () => {
      const tag = newTag("sleep-zero");
      await send("test/sleep-zero", { tag });
      const run = await finishedRun("sleep-zero", tag);
      expect(run.status, describeRuns([run])).toBe("completed");
    });

    it("parallel sleeps (Promise.all of two 1 s sleeps) both end before the run continues", async () => {
      const tag = newTag("parallel-sleeps");
      await send("test/parallel-sleeps", { tag });
      const run = await finishedRun("parallel-sleeps", tag);
      expect(run.status, describeRuns([run])).toBe("completed");
      // The executor handles one blocking op per round, so these sleeps run one after the other
      // (about 2 s; Inngest would take about 1 s): slower, not wrong.
      expect((run.output as { elapsed: number }).elapsed).toBeGreaterThanOrEqual(1_000);
    });
  });

  describe("step.invoke", () => {
    it("returns the invoked function's return value", async () => {
      const tag = newTag("invoke");
      await send("test/invoke", { tag, x: 21 });
      const run = await finishedRun("invoke-parent", tag);
      expect(run.status, describeRuns([run])).toBe("completed");
      expect(run.output).toEqual({ result: { doubled: 42 } });
      const child = await finishedRun("invoke-child", tag);
      expect(child.parent_run_id).toBe(run.id);
      expect(count(`invoke-child:${tag}`)).toBe(1);
    });

    it("throws in the invoking step when the invoked function fails", async () => {
      const tag = newTag("invoke-fail");
      await send("test/invoke", { tag, x: 5, fail: true });
      const run = await finishedRun("invoke-parent", tag);
      expect(run.status, describeRuns([run])).toBe("completed");
      expect(run.output).toMatchObject({ caught: { message: expect.stringContaining("child refuses 5") } });
      const child = await finishedRun("invoke-child", tag);
      expect(child.status).toBe("failed");
    });

    it("resumes the parent even when the child finishes before the parent is marked waiting", async () => {
      const tag = newTag("invoke-race");
      // A slow database right after the child run is created: the child runs and finishes first.
      setSlowStatement((sql, params) => (sql.startsWith("INSERT INTO executor_runs") && params?.[6] ? 700 : undefined));
      try {
        await send("test/invoke", { tag, x: 4 });
        const child = await finishedRun("invoke-child", tag);
        expect(child.status).toBe("completed");
      } finally {
        setSlowStatement(undefined);
      }
      const run = await finishedRun("invoke-parent", tag, 5_000);
      expect(run.output).toEqual({ result: { doubled: 8 } });
    });
  });
});
