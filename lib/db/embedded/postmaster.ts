import { readFileSync } from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";

/** Process helpers: reading postmaster.pid, liveness checks, signalling, waiting, free ports. */

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface PostmasterStatus {
  pid: number;
  port: number;
  /** The directory of its Unix socket; "" when it listens on TCP only. */
  socketDir: string;
  status: string;
}

/** The live postmaster recorded in postmaster.pid, if any (lines: pid, dir, start, port, socket dir, ..., status). */
export async function runningPostmaster(clusterDir: string): Promise<PostmasterStatus | undefined> {
  const file = path.join(clusterDir, "postmaster.pid");
  const text = await fs.readFile(file, "utf8").catch(() => undefined);
  if (!text) return undefined;
  const lines = text.split("\n");
  const pid = Number.parseInt(lines[0] ?? "", 10);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
  if (!looksLikePostgres(pid)) {
    // The pid was reused by an unrelated process after the postmaster died (common in containers);
    // PostgreSQL would refuse to start, so drop the stale file.
    await fs.rm(file, { force: true });
    return undefined;
  }
  return {
    pid,
    port: Number.parseInt(lines[3] ?? "", 10) || 0,
    socketDir: (lines[4] ?? "").trim(),
    status: (lines[7] ?? "").trim(),
  };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  if (process.platform === "linux") {
    // A zombie still answers kill(0): e.g. an adopted orphan whose new parent never reaps it.
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (state === "Z" || state === "X") return false;
    } catch {
      return false;
    }
  }
  return true;
}

function looksLikePostgres(pid: number): boolean {
  if (process.platform !== "linux") return true; // no cheap check; PostgreSQL's own error will tell
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("postgres");
  } catch {
    return true;
  }
}

/**
 * Signals the postmaster only while postmaster.pid still names it: once it has died (SIGKILL) its
 * pid may belong to an unrelated process or to a newer postmaster started by someone else.
 */
export function signalPostmaster(clusterDir: string, pid: number, sig: NodeJS.Signals): boolean {
  try {
    const recorded = readFileSync(path.join(clusterDir, "postmaster.pid"), "utf8").split("\n")[0] ?? "";
    if (Number.parseInt(recorded, 10) !== pid) return false;
    process.kill(pid, sig);
    return true;
  } catch {
    return false; // no pid file or already gone
  }
}

export async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(25);
  }
  return true;
}

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it; nothing holds it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
