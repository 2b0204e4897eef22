import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { WorkerHostError } from "./worker-host";
import { echo, hostError, makeHost, rejection, WORKER_SOURCE } from "@/tests/support/worker-host-fixtures";

describe("WorkerHost", () => {
  it("starts lazily, answers requests by id one at a time in call order, and ignores non-answers", async () => {
    const host = makeHost();
    expect(host.info()).toMatchObject({ state: "stopped", starts: 0 });
    const order: number[] = [];
    const answers = await Promise.all(
      [60, 10, 30].map(async (ms, i) => {
        const answer = (await host.request({ type: "slow", value: ms })) as { value: number; concurrent: number };
        order.push(i);
        return answer;
      }),
    );
    expect(order).toEqual([0, 1, 2]);
    expect(answers.map((a) => a.value)).toEqual([60, 10, 30]);
    expect(answers.every((a) => a.concurrent === 1)).toBe(true);
    expect(await host.request({ type: "progress" })).toBe("done");
    expect(host.info()).toMatchObject({ state: "ready", starts: 1, failures: 0, inFlight: false, queued: 0 });
  });

  it("transfers buffers instead of copying them", async () => {
    const host = makeHost();
    const buffer = new ArrayBuffer(1024);
    expect(await host.request({ type: "bytes", value: buffer }, { transfer: [buffer] })).toBe(1024);
    expect(buffer.byteLength).toBe(0); // detached: it moved
  });

  it("passes on an error answer, and keeps or replaces the worker as configured", async () => {
    const keeping = makeHost();
    const first = await echo(keeping);
    const error = await hostError(keeping.request({ type: "fail" }), "failed");
    expect(error.message).toBe("the worker refused");
    expect((await echo(keeping)).threadId).toBe(first.threadId);

    const replacing = makeHost({ replaceAfterError: true });
    const before = await echo(replacing);
    await hostError(replacing.request({ type: "fail" }), "failed");
    expect((await echo(replacing)).threadId).not.toBe(before.threadId);
    expect(replacing.info()).toMatchObject({ starts: 2, failures: 1 });
  });

  it("times out a request the worker does not answer, replaces the worker and serves the next request", async () => {
    const host = makeHost({ requestTimeoutMs: 150 });
    const before = await echo(host);
    const started = performance.now();
    const error = await hostError(host.request({ type: "hang" }), "timeout");
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(error.message).toMatch(/did not answer within 150 ms/);
    const after = await echo(host);
    expect(after.threadId).not.toBe(before.threadId);
    expect(host.info()).toMatchObject({ starts: 2, failures: 1 });
  });

  it("fails the pending request when the worker crashes or exits, and restarts for the next", async () => {
    const host = makeHost();
    const first = await echo(host);
    const crashing = host.request({ type: "crash" });
    const queued = echo(host, "queued behind the crash");
    const crash = await hostError(crashing, "died");
    expect(crash.message).toMatch(/crashed: boom/);
    // The request queued behind it goes to a fresh worker.
    const second = await queued;
    expect(second.value).toBe("queued behind the crash");
    expect(second.threadId).not.toBe(first.threadId);

    expect((await hostError(host.request({ type: "exit" }), "died")).message).toMatch(/exited \(code 3\)/);
    expect((await echo(host)).value).toBe("hi");
    expect(host.info()).toMatchObject({ starts: 3, failures: 2 });
  });

  it("replaces a worker that dies while idle, and one killed from outside mid-request", async () => {
    const host = makeHost();
    const first = await echo(host);
    host.thread!.postMessage({ id: 0, type: "crash" });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(host.info().state).toBe("stopped");
    const second = await echo(host);
    expect(second.threadId).not.toBe(first.threadId);

    const pending = host.request({ type: "hang" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await host.thread!.terminate();
    await hostError(pending, "died");
    expect((await echo(host)).value).toBe("hi");
  });

  it("rejects with the signal's reason: a queued request is never sent, a running one finishes unseen", async () => {
    const host = makeHost({ onAbandon: "let-finish" });
    const first = await echo(host);
    const preAborted = AbortSignal.abort(new Error("gave up early"));
    expect(((await rejection(echo(host, "x", preAborted))) as Error).message).toBe("gave up early");

    const controller = new AbortController();
    const running = host.request({ type: "slow", value: 200 }, { signal: controller.signal });
    const queued = new AbortController();
    const waiting = echo(host, "never sent", queued.signal);
    const after = echo(host, "after");
    await new Promise((resolve) => setTimeout(resolve, 20));
    queued.abort(new Error("queued gave up"));
    controller.abort(new Error("running gave up"));
    expect(((await rejection(running)) as Error).message).toBe("running gave up");
    expect(((await rejection(waiting)) as Error).message).toBe("queued gave up");
    const started = performance.now();
    const next = await after;
    // It waited for the abandoned request to finish on the same worker.
    expect(performance.now() - started).toBeGreaterThan(100);
    expect(next.threadId).toBe(first.threadId);
    expect(host.info()).toMatchObject({ starts: 1, abandoned: 0 });
  });

  it("replaces the worker when a running request is abandoned with onAbandon: replace", async () => {
    const host = makeHost({ onAbandon: "replace" });
    const first = await echo(host);
    const controller = new AbortController();
    const running = host.request({ type: "hang" }, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort(new Error("too slow"));
    expect(((await rejection(running)) as Error).message).toBe("too slow");
    expect(host.info()).toMatchObject({ state: "stopped", abandoned: 1, failures: 0 });
    expect((await echo(host)).threadId).not.toBe(first.threadId);
  });

  it("initializes each new worker before its first request and reports failed or slow starts", async () => {
    const host = makeHost({
      initialize: async (send) => {
        expect(await send({ type: "init" })).toBe(1);
      },
    });
    await host.warmUp();
    expect(host.info()).toMatchObject({ state: "ready", starts: 1 });
    expect(host.info().lastStartMs).toBeGreaterThanOrEqual(0);
    expect((await echo(host)).initialized).toBe(1);

    const failing = makeHost({ replaceAfterError: true, initialize: (send) => send({ type: "fail" }).then(() => {}) });
    const error = await hostError(echo(failing), "start-failed");
    expect(error.message).toMatch(/failed to start: the worker refused/);
    expect(failing.info()).toMatchObject({ state: "stopped", failures: 1 });

    const slow = makeHost({ startTimeoutMs: 100, initialize: (send) => send({ type: "hang" }).then(() => {}) });
    expect((await hostError(slow.warmUp(), "start-failed")).message).toMatch(/did not start within 100 ms/);
    // The budget holds even when initialize waits for something other than the worker.
    const stuck = makeHost({ startTimeoutMs: 100, initialize: () => new Promise<void>(() => {}) });
    expect((await hostError(stuck.warmUp(), "start-failed")).message).toMatch(/did not start within 100 ms/);
    expect(stuck.info()).toMatchObject({ state: "stopped", failures: 1 });
  });

  it("keeps a start going when the request waiting for it gives up", async () => {
    const host = makeHost({ initialize: (send) => send({ type: "slow", value: 100 }).then(() => {}) });
    const first = echo(host, "impatient", AbortSignal.timeout(20));
    expect(((await rejection(first)) as Error).name).toBe("TimeoutError");
    expect(host.info().state).toBe("starting");
    expect((await echo(host)).value).toBe("hi");
    expect(host.info().starts).toBe(1);
  });

  it("fails every pending request on shutdown and starts a new worker afterwards", async () => {
    const host = makeHost();
    const first = await echo(host);
    const running = host.request({ type: "hang" });
    const queued = echo(host, "queued");
    const failures = Promise.all([hostError(running, "shut-down"), hostError(queued, "shut-down")]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await host.shutdown();
    await failures;
    expect(host.info()).toMatchObject({ state: "stopped", inFlight: false, queued: 0, failures: 0 });
    expect(host.thread).toBeUndefined();
    expect((await echo(host)).threadId).not.toBe(first.threadId);

    const starting = makeHost({ initialize: (send) => send({ type: "hang" }).then(() => {}) });
    const warming = hostError(starting.warmUp(), "shut-down");
    await new Promise((resolve) => setTimeout(resolve, 20));
    await starting.shutdown();
    await warming;
  });

  it("reports a script that cannot be loaded as a failure of the request", async () => {
    const host = makeHost({ script: "/nonexistent/worker-host-test.mjs", workerOptions: {} });
    const error = await rejection(echo(host));
    expect(error).toBeInstanceOf(WorkerHostError);
    expect(["died", "start-failed"]).toContain((error as WorkerHostError).code);
  });
});

describe("WorkerHost and the process lifetime", () => {
  it("keeps the process alive while a request runs, and not once the worker is idle", async () => {
    const hostModule = new URL("./worker-host.ts", import.meta.url).pathname;
    const script = `
      import { WorkerHost } from ${JSON.stringify(hostModule)};
      const host = new WorkerHost({
        name: "the idle worker",
        script: ${JSON.stringify(WORKER_SOURCE)},
        workerOptions: { eval: true },
        onAbandon: "let-finish",
        protocol: { encode: (id, request) => ({ id, ...request }), decode: (m) => (typeof m?.id === "number" ? { id: m.id, ok: true, result: m.result } : null) },
      });
      host.request({ type: "slow", value: 300 }).then((answer) => console.log(JSON.stringify(answer)));
    `;
    const dir = await mkdtemp(path.join(os.tmpdir(), "worker-host-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    await writeFile(path.join(dir, "idle.mts"), script);
    const child = spawn(process.execPath, ["--import", "tsx", path.join(dir, "idle.mts")], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const kill = setTimeout(() => child.kill("SIGKILL"), 15_000);
      child.on("exit", (exitCode) => {
        clearTimeout(kill);
        resolve(exitCode);
      });
    });
    expect({ code, stderr: stderr.slice(0, 500) }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(stdout.trim())).toEqual({ value: 300, concurrent: 1 });
  }, 20_000);
});
