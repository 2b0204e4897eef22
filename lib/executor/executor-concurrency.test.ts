import { describe, expect, it } from "vitest";
import { recorded, type Interval, overlaps } from "./test-functions";
import { newTag, runsOf, eventually, send, useExecutorHarness } from "./test-support";

/**
 * Flow control: concurrency limits (with and without a key) and throttling.
 * Runs against the embedded executor contract harness (test-support.ts).
 */
useExecutorHarness();

describe("embedded executor against the SDK's serve()", () => {
  it("concurrency { limit: 1 }: step executions never overlap", async () => {
    const tag = newTag("serial");
    await Promise.all([1, 2, 3, 4].map((n) => send("test/serial", { tag, n })));
    await eventually("4 serial runs to complete", async () => {
      const runs = await runsOf("serial", tag);
      return runs.length === 4 && runs.every((r) => r.status === "completed");
    });
    const intervals = recorded<Interval>(`serial:${tag}`);
    expect(intervals).toHaveLength(8);
    for (const a of intervals) {
      for (const b of intervals) {
        if (a !== b) expect(overlaps(a, b), `overlap: ${JSON.stringify([a, b])}`).toBe(false);
      }
    }
  });

  it("concurrency with a key: the same key never overlaps, different keys may", async () => {
    const tag = newTag("keyed");
    const sends = [
      { n: 1, key: "A" },
      { n: 2, key: "A" },
      { n: 3, key: "B" },
      { n: 4, key: "B" },
    ].map((d) => send("test/keyed", { tag, ...d }));
    await Promise.all(sends);
    await eventually("4 keyed runs to complete", async () => {
      const runs = await runsOf("keyed", tag);
      return runs.length === 4 && runs.every((r) => r.status === "completed");
    });
    const intervals = recorded<Interval>(`keyed:${tag}`);
    expect(intervals).toHaveLength(4);
    let crossKeyOverlap = false;
    for (const a of intervals) {
      for (const b of intervals) {
        if (a === b) continue;
        if (a.key === b.key) expect(overlaps(a, b), `same-key overlap: ${JSON.stringify([a, b])}`).toBe(false);
        else if (overlaps(a, b)) crossKeyOverlap = true;
      }
    }
    expect(crossKeyOverlap, `no two keys ever ran together: ${JSON.stringify(intervals)}`).toBe(true);
  });

  it("throttle { limit: 1, period: '1s' }: run starts are spaced by about 1 s", async () => {
    const tag = newTag("throttle");
    await Promise.all([1, 2, 3].map((n) => send("test/throttled", { tag, n })));
    await eventually(
      "3 throttled runs to complete",
      async () => {
        const runs = await runsOf("throttled", tag);
        return runs.length === 3 && runs.every((r) => r.status === "completed");
      },
      10_000,
    );
    const starts = recorded<{ at: number }>(`throttled:${tag}`)
      .map((r) => r.at)
      .sort((a, b) => a - b);
    expect(starts).toHaveLength(3);
    const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
    // Seen from inside the function, with the latency between claim and call as jitter.
    for (const gap of gaps) expect(gap, `gaps between first steps: ${gaps.join(", ")} ms`).toBeGreaterThanOrEqual(800);
    // The run starts the throttle admits (executor_runs.started_at): at least the period apart.
    const runStarts = (await runsOf("throttled", tag)).map((r) => r.started_at!.getTime()).sort((a, b) => a - b);
    const runGaps = runStarts.slice(1).map((at, i) => at - runStarts[i]!);
    for (const gap of runGaps) expect(gap, `started_at gaps: ${runGaps.join(", ")} ms`).toBeGreaterThanOrEqual(990);
  });
});
