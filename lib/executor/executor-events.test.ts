import { describe, expect, it } from "vitest";
import { count, recorded, delay } from "./test-functions";
import { newTag, pool, inngest, runsOf, describeRuns, eventually, finishedRun, send, useExecutorHarness } from "./test-support";

/**
 * Events: step.sendEvent, deduplication by id, trigger expressions and idempotency keys.
 * Runs against the embedded executor contract harness (test-support.ts).
 */
useExecutorHarness();

describe("embedded executor against the SDK's serve()", () => {
  it("step.sendEvent triggers another function once", async () => {
    const tag = newTag("send");
    await send("test/send", { tag });
    const run = await finishedRun("sender", tag);
    expect(run.status, describeRuns([run])).toBe("completed");
    const { ids } = run.output as { ids: string[] };
    expect(ids).toHaveLength(1);
    const received = await finishedRun("receiver", tag);
    expect(received.status).toBe("completed");
    expect(count(`receiver:${tag}`)).toBe(1);
    expect(recorded(`receiver:${tag}`)[0]).toEqual({ tag, from: "sender" });
    const { rows } = await pool.query(`SELECT name FROM executor_events WHERE id = $1`, [ids[0]]);
    expect(rows).toEqual([{ name: "test/sent" }]);
  });

  it("deduplicates events by id: the same id sent twice starts one run", async () => {
    const tag = newTag("dedupe");
    const id = `dedupe-${tag}`;
    expect(await send("test/dedupe", { tag }, id)).toEqual([id]);
    expect(await send("test/dedupe", { tag }, id)).toEqual([id]);
    await finishedRun("dedupe", tag);
    await delay(200);
    expect(await runsOf("dedupe", tag)).toHaveLength(1);
    expect(count(`dedupe:${tag}`)).toBe(1);
  });

  it("deduplicates an id repeated within one send", async () => {
    const tag = newTag("dedupe-batch");
    const id = `dedupe-${tag}`;
    await inngest.send([
      { id, name: "test/dedupe", data: { tag } },
      { id, name: "test/dedupe", data: { tag } },
    ]);
    await eventually("a run", async () => (await runsOf("dedupe", tag)).length > 0);
    await delay(300);
    const runs = await runsOf("dedupe", tag);
    expect(runs, describeRuns(runs)).toHaveLength(1);
  });

  it("trigger if expressions filter which events start runs", async () => {
    const tag = newTag("filtered");
    await send("test/filtered", { tag, amount: 5, currency: "EUR" });
    await send("test/filtered", { tag, amount: 50, currency: "USD" });
    await send("test/filtered", { tag, amount: 20, currency: "EUR" });
    await finishedRun("filtered", tag);
    await delay(200);
    expect(await runsOf("filtered", tag)).toHaveLength(1);
    expect([count(`filtered:${tag}:5`), count(`filtered:${tag}:50`), count(`filtered:${tag}:20`)]).toEqual([0, 0, 1]);
  });

  it("idempotency: a second event with the same key creates no run", async () => {
    const tag = newTag("idem");
    await send("test/idempotent", { tag, orderId: `${tag}-1` });
    await send("test/idempotent", { tag, orderId: `${tag}-1` }); // different event id, same key
    await send("test/idempotent", { tag, orderId: `${tag}-2` });
    await eventually("2 idempotent runs to complete", async () => {
      const runs = await runsOf("idempotent", tag);
      return runs.length === 2 && runs.every((r) => r.status === "completed");
    });
    await delay(200);
    expect(await runsOf("idempotent", tag)).toHaveLength(2);
    expect([count(`idempotent:${tag}:${tag}-1`), count(`idempotent:${tag}:${tag}-2`)]).toEqual([1, 1]);
  });
});
