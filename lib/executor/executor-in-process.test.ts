import { serve as serveOverHttp } from "inngest/node";
import { serve as serveRequests } from "inngest/next";
import type { NextRequest } from "next/server";
import { describe, expect, it } from "vitest";
import { sendJobs, sendJobsInProcess } from "@/lib/jobs/client";
import type { ServeHandler } from "./in-process";
import { defineFunctions } from "./test-functions";
import { describeRuns, e1, finishedRun, inngest, listen, newExecutor, newTag, pool, useExecutorHarness } from "./test-support";

/**
 * The embedded executor in the server's own process (lib/executor/mode.ts): it calls the serve
 * endpoint's handler directly and takes job messages from sendJobs directly. The endpoint also
 * listens over HTTP (the sync goes there), counting the calls that should not come.
 */
useExecutorHarness();

const STEP_TIMEOUT_MS = 500;
/** Tags whose first call of the handler never answers (as a hung step would not). */
const hangOnce = new Set<string>();

/** The handler, counting calls; the first call of a run whose tag is in hangOnce never answers. */
function hangingOnce(post: ServeHandler): ServeHandler {
  return async (request) => {
    const { event } = JSON.parse(await request.clone().text()) as { event: { data: { tag?: string } } };
    if (event.data.tag && hangOnce.delete(event.data.tag)) return new Promise<Response>(() => undefined);
    return post(request);
  };
}

let setUp: ReturnType<typeof inProcessSetup> | undefined;

/** The file's executor (set up once), taking this process's job messages. */
async function inProcess() {
  const { calls, executor } = await (setUp ??= inProcessSetup());
  sendJobsInProcess((events) => executor.sendEvents(events));
  return calls;
}

async function inProcessSetup() {
  await e1.stop(); // only this file's executor runs functions
  const overHttp = serveOverHttp({ client: inngest, functions: defineFunctions(inngest) });
  const calls = { http: 0, inProcess: 0 };
  const serveUrl = await listen((req, res) => {
    if (req.method === "POST") calls.http++;
    return overHttp(req, res);
  });
  const { POST } = serveRequests({ client: inngest, functions: defineFunctions(inngest) });
  const handler = hangingOnce((request) => POST(request as NextRequest, undefined));
  const executor = newExecutor({ serveUrl, stepTimeoutMs: STEP_TIMEOUT_MS, serveHandler: () => (request) => (calls.inProcess++, handler(request)) });
  await executor.start();
  return { calls, executor };
}

describe("the embedded executor in the serve endpoint's process", () => {
  it("runs a function of several steps through the handler, never over HTTP, from a job message sent in process", async () => {
    try {
      const calls = await inProcess();
      const tag = newTag("in-process");
      const id = `in-process-${tag}`;
      await sendJobs([{ id, name: "test/memo", data: { tag } }]);
      const run = await finishedRun("memo", tag);
      expect(run.status, describeRuns([run])).toBe("completed");
      expect(run.output).toEqual({ c: { sum: 3, tag }, total: 6 });
      expect(calls.http).toBe(0);
      expect(calls.inProcess).toBeGreaterThanOrEqual(4);
      // Recorded as the event API records a sent event, under the message's id.
      const { rows } = await pool.query(`SELECT payload FROM executor_events WHERE id = $1`, [id]);
      expect(rows[0]?.payload).toMatchObject({ id, name: "test/memo", data: { tag } });
      // The same message again (a relay that sent but did not delete it) starts no second run.
      await sendJobs([{ id, name: "test/memo", data: { tag } }]);
      const { rows: runs } = await pool.query(`SELECT id FROM executor_runs WHERE event->'data'->>'tag' = $1`, [tag]);
      expect(runs).toHaveLength(1);
    } finally {
      sendJobsInProcess(null);
    }
  });

  it("a call that does not answer within the step timeout counts as a failed attempt, and the retry completes the run", async () => {
    try {
      const calls = await inProcess();
      const tag = newTag("in-process-hang");
      hangOnce.add(tag);
      await sendJobs([{ id: `hang-${tag}`, name: "test/memo", data: { tag } }]);
      const run = await finishedRun("memo", tag, 10_000);
      expect(run.status, describeRuns([run])).toBe("completed");
      expect(hangOnce.has(tag)).toBe(false);
      expect(calls.http).toBe(0);
    } finally {
      sendJobsInProcess(null);
    }
  });
});
