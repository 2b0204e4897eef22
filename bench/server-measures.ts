import { readFile, readdir } from "node:fs/promises";
import os from "node:os";
import { DISPATCH_BATCH } from "@/lib/connectors/dispatch";

/**
 * What the delivery bench (bench/events.ts) measures in and around the server process: the
 * baselines and C sent from inside it (bench/server-probe.mjs), its CPU profile and garbage
 * collection, and CPU times from /proc.
 */

/**
 * The same plain POSTs made inside the server process (bench/server-probe.mjs): issue #10 compares
 * delivery with "plain signed HTTP POSTs from the same process". Null when the probe is absent.
 */
export async function plainSignedPostsInServer(
  probeUrl: string,
  url: string,
  body: string,
  count: number,
  inFlight: number,
  client: "node:http" | "undici" = "node:http",
): Promise<number | null> {
  try {
    const res = await fetch(`${probeUrl}/plain-posts`, { method: "POST", body: JSON.stringify({ url, body, count, inFlight, client }) });
    if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { rate: number }).rate;
  } catch (error) {
    console.log(`  ! the server-process baseline failed: ${(error as Error).message}`);
    return null;
  }
}

/** C, in the server process (bench/server-probe.mjs readAndSendEvents), in pages as large as the dispatcher's largest pass; null when it failed. */
export async function readAndSendInServer(probeUrl: string, url: string, ids: string[], inFlight: number): Promise<number | null> {
  try {
    const res = await fetch(`${probeUrl}/read-and-send`, { method: "POST", body: JSON.stringify({ url, ids, inFlight, pageSize: DISPATCH_BATCH }) });
    if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { rate: number }).rate;
  } catch (error) {
    console.log(`  ! reading and sending in the server process failed: ${(error as Error).message}`);
    return null;
  }
}

/** Starts (to `file`, less its extension) or stops a CPU profile of the server process (bench/server-probe.mjs); stop returns the file. */
export async function probeProfile(probeUrl: string, command: "start" | "stop", file?: string): Promise<string> {
  const res = await fetch(`${probeUrl}/profile`, { method: "POST", body: JSON.stringify({ command, file }) });
  if (!res.ok) throw new Error(`profile ${command}: HTTP ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { file?: string }).file ?? "";
}

/** CPU time (ms) used so far: by the server process, all PostgreSQL processes, this process and the whole machine. */
export interface CpuSample {
  server: number;
  postgres: number;
  self: number;
  machine: number;
  /** The machine's idle time (idle and iowait, summed over its CPUs). */
  idle: number;
  at: number;
}

/**
 * CPU times from /proc (null elsewhere): per delivery they are figures that other work on the
 * machine barely moves, and what the machine did besides says how far the rates can be trusted.
 */
export async function cpuMs(serverPid: number): Promise<CpuSample | null> {
  const ticks = async (pid: string) => {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), ticks: Number(fields[11]) + Number(fields[12]) };
  };
  try {
    const server = (await ticks(String(serverPid))).ticks;
    const self = (await ticks(String(process.pid))).ticks;
    let postgres = 0;
    for (const pid of (await readdir("/proc")).filter((name) => /^\d+$/.test(name))) {
      const proc = await ticks(pid).catch(() => null);
      if (proc?.name === "postgres") postgres += proc.ticks;
    }
    // The first line of /proc/stat: user nice system idle ... (interrupts, which carry loopback
    // traffic, are not a process's time: left out on both sides).
    const all = (await readFile("/proc/stat", "utf8")).split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    const machine = (all[0] ?? 0) + (all[1] ?? 0) + (all[2] ?? 0);
    const idle = (all[3] ?? 0) + (all[4] ?? 0);
    const ms = (x: number) => x * 10; // USER_HZ is 100 on Linux
    return { server: ms(server), postgres: ms(postgres), self: ms(self), machine: ms(machine), idle: ms(idle), at: performance.now() };
  } catch {
    return null;
  }
}

/**
 * CPU per request: the server, PostgreSQL, and this process (the receiver, and the bench waiting);
 * then, when the probe measured them, the server's garbage collection per request (part of its
 * CPU) and how much of the time its event loop was busy.
 */
export function cpuPer(before: CpuSample | null, after: CpuSample | null, n: number, loop: ServerLoop | null = null): string {
  if (!before || !after) return "";
  const ms = (x: number) => (x / n).toFixed(3);
  const gc = loop === null ? "" : `; server GC ${ms(loop.gcMs)} ms, event loop busy ${(loop.busy * 100).toFixed(0)}%`;
  return `CPU/request: server ${ms(after.server - before.server)} ms, PostgreSQL ${ms(after.postgres - before.postgres)} ms, receiver ${ms(after.self - before.self)} ms${gc}`;
}

export interface ServerLoop {
  gcMs: number;
  /** The share of the time its event loop ran callbacks (0–1). */
  busy: number;
}

/** The server's garbage collection time (ms) and event-loop use since the last call (bench/server-probe.mjs); null without the probe. */
export async function serverLoop(probeUrl: string): Promise<ServerLoop | null> {
  try {
    const res = await fetch(`${probeUrl}/loop`, { method: "POST", body: "{}" });
    if (!res.ok) return null;
    const { ms, loopBusy } = (await res.json()) as { ms: number; loopBusy: number };
    return { gcMs: ms, busy: loopBusy };
  } catch {
    return null;
  }
}

/** Shares of the machine's CPUs over a measurement (0–1). */
export interface MachineShares {
  /** Used by processes other than the server, PostgreSQL and this one. */
  other: number;
  /**
   * Idle: on a machine whose processes wait on one another (the delivery bench's server, database
   * and receiver on two cores), what the run left unused says it was bound by waits, not CPU.
   */
  idle: number;
}

export function machineShares(before: CpuSample | null, after: CpuSample | null): MachineShares | null {
  if (!before || !after) return null;
  const capacity = (after.at - before.at) * os.availableParallelism();
  const mine = after.server - before.server + (after.postgres - before.postgres) + (after.self - before.self);
  const other = Math.max(0, after.machine - before.machine - mine);
  return { other: other / capacity, idle: Math.min(1, Math.max(0, (after.idle - before.idle) / capacity)) };
}
