import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";

/**
 * Starts a real Sieve server (`server.ts`, production build) on an embedded PostgreSQL in a
 * throw-away data directory, for the HTTP-level tests. The tests talk to it over HTTP only and
 * provision projects through the same library functions the admin CLI uses.
 */
declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    databaseUrl: string;
    dataDir: string;
  }
}

export default async function setup(project: TestProject) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "sieve-http-"));
  process.env.DATA_DIR = dataDir;
  delete process.env.DATABASE_URL;
  const { ensureDatabase } = await import("@/lib/db/database");
  const database = await ensureDatabase();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;

  const server = spawn(process.execPath, ["--import", "tsx", "server.ts"], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      DATABASE_URL: database.url,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: baseUrl,
      NEXT_TELEMETRY_DISABLED: "1",
      SIEVE_UPLOAD_EXPIRY_SECONDS: "5",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  server.stdout?.on("data", (d: Buffer) => output.push(d.toString()));
  server.stderr?.on("data", (d: Buffer) => output.push(d.toString()));
  if (process.env.SIEVE_TEST_SERVER_LOG) server.stderr?.pipe(process.stderr);

  try {
    await waitForHealth(baseUrl, server, 180_000);
  } catch (error) {
    server.kill("SIGKILL");
    await database.stop();
    throw new Error(`Test server did not start: ${(error as Error).message}\n${output.join("")}`);
  }

  project.provide("baseUrl", baseUrl);
  project.provide("databaseUrl", database.url);
  project.provide("dataDir", dataDir);

  return async () => {
    await stop(server);
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}

async function waitForHealth(baseUrl: string, server: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`server exited with code ${server.exitCode}`);
    try {
      const response = await fetch(`${baseUrl}/v1/health-check`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error("timed out waiting for /v1/health-check");
}

async function stop(server: ChildProcess) {
  if (server.exitCode !== null) return;
  const exited = new Promise((resolve) => server.once("exit", resolve));
  server.kill("SIGTERM");
  const timer = setTimeout(() => server.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
