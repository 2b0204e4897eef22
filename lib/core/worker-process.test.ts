import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { WorkerHostError } from "./worker-host";
import { echo, hostError, makeHost, rejection, WORKER_SOURCE } from "@/tests/support/worker-host-fixtures";

// The same worker as a forked child process: the IPC channel instead of parentPort.
const PROCESS_WORKER_SOURCE = WORKER_SOURCE.replace(
  `const { parentPort, threadId } = require("node:worker_threads");`,
  `const threadId = process.pid;
process.on("disconnect", () => process.exit(0));
const parentPort = { on: (event, listener) => process.on(event, listener), postMessage: (message) => process.send(message) };`,
);

async function processWorkerScript(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "worker-process-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const script = path.join(dir, "worker.cjs");
  await writeFile(script, PROCESS_WORKER_SOURCE);
  return script;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("WorkerHost with isolation: process", () => {
  it("answers requests one at a time from a child process, copying buffers", async () => {
    const host = makeHost({ script: await processWorkerScript(), workerOptions: {}, isolation: "process" });
    const answers = await Promise.all([40, 5].map((ms) => host.request({ type: "slow", value: ms }) as Promise<{ value: number; concurrent: number }>));
    expect(answers).toEqual([{ value: 40, concurrent: 1 }, { value: 5, concurrent: 1 }]);
    const first = await echo(host);
    expect(first.threadId).not.toBe(process.pid);
    expect(host.info().threadId).toBe(first.threadId);
    const bytes = new Uint8Array([1, 2, 3]).buffer;
    expect(await host.request({ type: "bytes", value: bytes }, { transfer: [bytes] })).toBe(3);
    expect(bytes.byteLength).toBe(3); // copied: a process cannot take it over
    expect(await hostError(host.request({ type: "fail" }), "failed")).toMatchObject({ message: "the worker refused" });
  });

  it("replaces a process that crashes, exits, hangs or is killed mid-request", async () => {
    const host = makeHost({ script: await processWorkerScript(), workerOptions: {}, isolation: "process", requestTimeoutMs: 1_000 });
    const first = await echo(host);
    expect((await hostError(host.request({ type: "crash" }), "died")).message).toMatch(/exited \(code 1\)/);
    expect(alive(first.threadId)).toBe(false);
    const second = await echo(host);
    expect(second.threadId).not.toBe(first.threadId);

    expect((await hostError(host.request({ type: "exit" }), "died")).message).toMatch(/exited \(code 3\)/);
    const third = await echo(host);

    const hanging = host.request({ type: "hang" });
    expect((await hostError(hanging, "timeout")).message).toMatch(/did not answer within 1000 ms/);
    const fourth = await echo(host);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(third.threadId)).toBe(false); // the hung process was killed, not left behind

    const pending = host.request({ type: "hang" });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await host.thread!.terminate();
    expect((await hostError(pending, "died")).message).toMatch(/exited \(code SIGKILL\)/);
    expect(alive(fourth.threadId)).toBe(false);
    expect((await echo(host)).value).toBe("hi");
    expect(host.info()).toMatchObject({ starts: 5, failures: 4 });

    await host.shutdown();
    expect(host.info().state).toBe("stopped");
  });

  it("reports a script that does not exist as a failure of the request", async () => {
    const host = makeHost({ script: "/nonexistent/worker-host-test.cjs", workerOptions: {}, isolation: "process" });
    const error = await rejection(echo(host));
    expect(error).toBeInstanceOf(WorkerHostError);
    expect(["died", "start-failed"]).toContain((error as WorkerHostError).code);
    expect((error as WorkerHostError).message).toMatch(/exited \(code 1\)/);
  });

  it("lets its parent exit once idle, and the child ends with a parent that is killed", async () => {
    const hostModule = new URL("./worker-host.ts", import.meta.url).pathname;
    const workerScript = await processWorkerScript();
    const parentSource = (then: string) => `
      import { WorkerHost } from ${JSON.stringify(hostModule)};
      const host = new WorkerHost({
        name: "the process worker", script: ${JSON.stringify(workerScript)}, isolation: "process", onAbandon: "let-finish",
        protocol: { encode: (id, request) => ({ id, ...request }), decode: (m) => (typeof m?.id === "number" ? { id: m.id, ok: true, result: m.result } : null) },
      });
      const answer = await host.request({ type: "echo", value: "x" });
      console.log(JSON.stringify(answer.threadId));
      ${then}
    `;
    const dir = path.dirname(workerScript);
    const run = async (name: string, then: string, onPid?: (child: ReturnType<typeof spawn>) => void) => {
      await writeFile(path.join(dir, name), parentSource(then));
      const child = spawn(process.execPath, ["--import", "tsx", path.join(dir, name)], { stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout!.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes("\n")) onPid?.(child);
      });
      child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | string | null>((resolve) => {
        const kill = setTimeout(() => child.kill("SIGKILL"), 15_000);
        child.on("exit", (exitCode, signal) => {
          clearTimeout(kill);
          resolve(exitCode ?? signal);
        });
      });
      return { code, stderr: stderr.slice(0, 500), workerPid: Number(stdout.trim().split("\n")[0]) };
    };

    // Idle: nothing keeps the parent running.
    const idle = await run("idle.mts", "");
    expect({ code: idle.code, stderr: idle.stderr }).toEqual({ code: 0, stderr: "" });
    expect(idle.workerPid).toBeGreaterThan(0);

    // Killed while it waits for a request that never ends: the orphaned worker exits by itself.
    const killed = await run("killed.mts", `await host.request({ type: "hang" });`, (child) => child.kill("SIGKILL"));
    expect(killed.code).toBe("SIGKILL");
    const deadline = Date.now() + 5_000;
    while (alive(killed.workerPid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(alive(killed.workerPid)).toBe(false);
  }, 40_000);
});
