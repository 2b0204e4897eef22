import { spawn, type ChildProcess } from "node:child_process";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { freePort } from "@/lib/db/embedded/postmaster";

/**
 * Starts a real Sieve server (`server.ts`, production build) on an embedded PostgreSQL in a
 * throw-away data directory. Used by the HTTP tests and the benchmarks.
 */
export interface RunningServer {
  baseUrl: string;
  /** The CDN serving processes' port (lib/server/cdn-processes.ts), unless CDN_PROCESSES=0. */
  cdnOrigin: string;
  databaseUrl: string;
  dataDir: string;
  stop(): Promise<void>;
}

export async function startTestServer(env: Record<string, string> = {}): Promise<RunningServer & CrashableServer> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "sieve-server-"));
  // mkdtemp makes the folder private; as root, PostgreSQL runs as `postgres` and must enter it.
  await chmod(dataDir, 0o755);
  process.env.DATA_DIR = dataDir;
  delete process.env.DATABASE_URL;
  const { ensureDatabase } = await import("@/lib/db/database");
  const database = await ensureDatabase();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const cdnPort = await freePort();

  // SIEVE_SERVER_NODE_ARGS passes flags such as --cpu-prof to the server process (profiling).
  const nodeArgs = (process.env.SIEVE_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const output: string[] = [];
  const spawnServer = () => {
    const child = spawn(process.execPath, [...nodeArgs, "--import", "tsx", "server.ts"], {
      cwd: process.cwd(),
      env: {
        ...process.env,
        DATABASE_URL: database.url,
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: "127.0.0.1",
        PUBLIC_URL: baseUrl,
        CDN_PORT: String(cdnPort),
        NEXT_TELEMETRY_DISABLED: "1",
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (d: Buffer) => output.push(d.toString()));
    child.stderr?.on("data", (d: Buffer) => output.push(d.toString()));
    if (process.env.SIEVE_TEST_SERVER_LOG) child.stderr?.pipe(process.stderr);
    return child;
  };
  let server = spawnServer();

  const cleanup = async () => {
    await stopProcess(server);
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  const started = async () => {
    try {
      await waitForHealth(baseUrl, server, 180_000);
    } catch (error) {
      await cleanup();
      throw new Error(`Test server did not start: ${(error as Error).message}\n${output.join("")}`);
    }
  };
  await started();
  return {
    baseUrl,
    cdnOrigin: `http://127.0.0.1:${cdnPort}`,
    databaseUrl: database.url,
    dataDir,
    stop: cleanup,
    output: () => output.join(""),
    pid: () => server.pid ?? -1,
    async kill() {
      if (server.exitCode !== null || server.signalCode !== null) return;
      const exited = new Promise((resolve) => server.once("exit", resolve));
      server.kill("SIGKILL");
      await exited;
    },
    async terminate() {
      await stopProcess(server);
    },
    async restart() {
      server = spawnServer();
      await started();
    },
  };
}

/** For crash tests: SIGKILL (or SIGTERM) the server process and start a new one on the same database and data. */
export interface CrashableServer {
  /** The server process's id (for memory measurements through /proc); it changes on restart. */
  pid(): number;
  kill(): Promise<void>;
  /** SIGTERM, as `npm start` gets it: resolves once the server has shut down (SIGKILL after 10 s). */
  terminate(): Promise<void>;
  restart(): Promise<void>;
  output(): string;
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

async function stopProcess(server: ChildProcess) {
  if (server.exitCode !== null) return;
  const exited = new Promise((resolve) => server.once("exit", resolve));
  server.kill("SIGTERM");
  const timer = setTimeout(() => server.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}
