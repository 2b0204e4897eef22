import { describe, expect, it } from "vitest";
import { count, recorded } from "./test-functions";
import { newTag, pool, describeRuns, finishedRun, send, useExecutorHarness } from "./test-support";

/**
 * Steps: memoization, parallel steps, retries with backoff, failures and onFailure.
 * Runs against the embedded executor contract harness (test-support.ts).
 */
useExecutorHarness();

describe("embedded executor against the SDK's serve()", () => {
  it("memoizes steps: each step body runs once and the return value is the run output", async () => {
    const tag = newTag("memo");
    const [eventId] = await send("test/memo", { tag });
    expect(eventId).toBeTruthy();
    const run = await finishedRun("memo", tag);
    expect(run.status, describeRuns([run])).toBe("completed");
    expect(run.output).toEqual({ c: { sum: 3, tag }, total: 6 });
    expect([count(`memo-a:${tag}`), count(`memo-b:${tag}`), count(`memo-c:${tag}`)]).toEqual([1, 1, 1]);
    expect(count(`memo-handler:${tag}`)).toBeGreaterThanOrEqual(4); // the handler replays around the memo
    expect(Object.keys(run.steps)).toHaveLength(3);
    expect(run.stack).toHaveLength(3);
    const { rows } = await pool.query(`SELECT payload FROM executor_events WHERE id = $1`, [eventId]);
    expect(rows[0]?.payload).toMatchObject({ name: "test/memo", data: { tag } });
  });

  it("retries a failing step: thrown twice, then succeeds on the third attempt", async () => {
    const tag = newTag("flaky");
    await send("test/flaky", { tag });
    const run = await finishedRun("flaky", tag);
    expect(run.status, describeRuns([run])).toBe("completed");
    expect(run.output).toBe("ok after 3");
    expect(count(`flaky:${tag}`)).toBe(3);
    expect(recorded<number>(`flaky-attempts:${tag}`)).toEqual([0, 1, 2]);
  });

  it("fails a run after retries + 1 attempts and runs onFailure once with the error", async () => {
    const tag = newTag("always");
    await send("test/always-fails", { tag });
    const run = await finishedRun("always-fails", tag);
    expect(run.status, describeRuns([run])).toBe("failed");
    expect(count(`always-fails:${tag}`)).toBe(3); // retries: 2
    expect(recorded<number>(`always-fails-attempts:${tag}`)).toEqual([0, 1, 2]);
    expect(run.error?.message).toContain(`doomed ${tag}`);
    const failure = await finishedRun("always-fails-failure", tag);
    expect(failure.status, describeRuns([failure])).toBe("completed");
    expect(count(`always-fails-onfailure:${tag}`)).toBe(1);
    expect(recorded<{ message: string }>(`always-fails-onfailure:${tag}`)[0]?.message).toContain(`doomed ${tag}`);
  });

  it("fails at once on NonRetriableError thrown in a step, and runs onFailure", async () => {
    const tag = newTag("nonretriable");
    await send("test/non-retriable", { tag });
    const run = await finishedRun("non-retriable", tag);
    expect(run.status, describeRuns([run])).toBe("failed");
    expect(count(`non-retriable:${tag}`)).toBe(1);
    await finishedRun("non-retriable-failure", tag);
    expect(count(`non-retriable-onfailure:${tag}`)).toBe(1);
    expect(recorded<string>(`non-retriable-onfailure:${tag}`)[0]).toContain(`no point retrying ${tag}`);
  });

  it("fails at once on NonRetriableError thrown outside a step", async () => {
    const tag = newTag("nonretriable-outside");
    await send("test/non-retriable", { tag, outside: true });
    const run = await finishedRun("non-retriable", tag);
    expect(run.status, describeRuns([run])).toBe("failed");
    expect(run.error?.name).toBe("NonRetriableError");
    expect(count(`non-retriable:${tag}`)).toBe(1);
    await finishedRun("non-retriable-failure", tag);
    expect(count(`non-retriable-onfailure:${tag}`)).toBe(1);
  });

  it("runs parallel steps (Promise.all of 3 step.run): all results, each once", async () => {
    const tag = newTag("parallel");
    await send("test/parallel", { tag });
    const run = await finishedRun("parallel", tag);
    expect(run.status, describeRuns([run])).toBe("completed");
    expect(run.output).toEqual({ results: [10, 20, 30], after: 60 });
    expect([1, 2, 3, "after"].map((n) => count(`parallel-${n}:${tag}`))).toEqual([1, 1, 1, 1]);
  });
});
