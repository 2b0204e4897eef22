import { describe, expect, it } from "vitest";
import { delay, recorded } from "./test-functions";
import { describeRuns, e1, eventually, inngest, newExecutor, newTag, pool, runsOf, useExecutorHarness } from "./test-support";

/**
 * batchEvents: events of one key become one run when maxSize arrive or the first has waited the
 * timeout; the buffer is durable. Runs against the embedded executor contract harness.
 */
useExecutorHarness();

const sendBatched = (tag: string, ns: number[], name = "test/batched", extra: Record<string, unknown> = {}) =>
  inngest.send(ns.map((n) => ({ name, data: { tag, n, ...extra } })));

/** Batches of `fn` for this tag, as the function saw them (each run's `events`). */
async function batchesOf(fn: string, tag: string, runs: number): Promise<number[][]> {
  const done = await eventually(`${runs} completed ${fn} runs`, async () => {
    const found = await runsOf(fn, tag);
    return found.length === runs && found.every((r) => r.status === "completed") && found;
  });
  return done.map((r) => (r.output as { ns: number[] }).ns);
}

describe("event batching (batchEvents)", () => {
  it("a full batch runs at once, with its events in order; the rest waits for the timeout", async () => {
    const tag = newTag("batch");
    const started = Date.now();
    await sendBatched(tag, [1, 2, 3, 4, 5, 6, 7]);
    const full = await eventually("two full batches", async () => {
      const runs = await runsOf("batched", tag);
      return runs.filter((r) => r.status === "completed").length >= 2 && runs;
    });
    // Full batches do not wait for the 1 s timeout.
    expect(Date.now() - started, describeRuns(full)).toBeLessThan(900);
    expect(full.slice(0, 2).map((r) => (r.output as { ns: number[] }).ns)).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    const batches = await batchesOf("batched", tag, 3);
    expect(batches).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(recorded(`batched:${tag}`)).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
  });

  it("batches per key, across sends, and deduplicates event ids", async () => {
    const a = newTag("batch-a");
    const b = newTag("batch-b");
    await sendBatched(a, [1]);
    await sendBatched(b, [1, 2]);
    await inngest.send({ id: `dup-${a}`, name: "test/batched", data: { tag: a, n: 2 } });
    await inngest.send({ id: `dup-${a}`, name: "test/batched", data: { tag: a, n: 2 } });
    await sendBatched(a, [3]);
    expect(await batchesOf("batched", a, 1)).toEqual([[1, 2, 3]]);
    expect(await batchesOf("batched", b, 1)).toEqual([[1, 2]]);
  });

  it("events that do not match the batch's if run on their own at once", async () => {
    const tag = newTag("batch-if");
    await sendBatched(tag, [1], "test/batched-if", { bulk: false });
    await sendBatched(tag, [2, 3], "test/batched-if", { bulk: true });
    const single = await eventually("the unbatched run", async () => {
      const runs = await runsOf("batched-if", tag);
      return runs.find((r) => r.status === "completed" && (r.output as { ns: number[] }).ns[0] === 1);
    });
    expect(single.finished_at!.getTime() - single.created_at.getTime()).toBeLessThan(900);
    const batches = await batchesOf("batched-if", tag, 2);
    expect(batches.sort((x, y) => x[0]! - y[0]!)).toEqual([[1], [2, 3]]);
  });

  it("each batch is formed at its own timeout, not at the next poll", async () => {
    const a = newTag("batch-timer-a");
    const b = newTag("batch-timer-b");
    await e1.stop();
    const slowPoll = newExecutor({ pollMs: 5_000 });
    await slowPoll.start();
    const send = (tag: string) => slowPoll.sendEvents([{ id: `${tag}-1`, name: "test/batched", data: { tag, n: 1 }, ts: Date.now() }]);
    const sentA = Date.now();
    await send(a);
    await delay(500);
    const sentB = Date.now();
    await send(b);
    for (const [tag, sent] of [[a, sentA], [b, sentB]] as const) {
      expect(await batchesOf("batched", tag, 1)).toEqual([[1]]);
      const [run] = await runsOf("batched", tag);
      expect(run!.created_at.getTime() - sent, tag).toBeGreaterThanOrEqual(950);
      expect(run!.created_at.getTime() - sent, tag).toBeLessThan(1_600);
    }
    await slowPoll.stop();
  });

  it("the buffer survives the executor: another process forms the batch when it is due", async () => {
    const tag = newTag("batch-durable");
    await e1.stop();
    // Buffered by an executor that stops before the timeout; never formed by it.
    const first = newExecutor();
    await first.start();
    await first.sendEvents([1, 2].map((n) => ({ id: `${tag}-${n}`, name: "test/batched", data: { tag, n }, ts: Date.now() })));
    await first.stop();
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM executor_batch_events WHERE event->'data'->>'tag' = $1`, [tag]);
    expect(rows[0].n).toBe(2);
    await delay(1100);
    const second = newExecutor();
    await second.start();
    expect(await batchesOf("batched", tag, 1)).toEqual([[1, 2]]);
    await second.stop();
  });
});
