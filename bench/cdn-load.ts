import { execFile, spawn, type ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { sleep } from "@/bench/cdn-tools";
import { freePort } from "@/lib/db/embedded/postmaster";

/** The load side of bench/cdn.ts: wrk, a throw-away nginx, a plain Node server, and how busy the machine is. */

export const INSTALL_HINT = "install them with `apt-get install wrk nginx-light` (Debian/Ubuntu)";

/**
 * The absolute path of an executable: `override` when given (BENCH_WRK / BENCH_NGINX; a path that
 * is not executable means "absent"), else on PATH or at the Debian default location; null if none.
 */
export function findExecutable(name: string, fallback: string, override?: string): string | null {
  const dirs = (process.env.PATH ?? "").split(path.delimiter).filter(Boolean);
  const candidates = override !== undefined ? [override] : [...dirs.map((d) => path.join(d, name)), fallback];
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not there
    }
  }
  return null;
}

// ---- wrk -----------------------------------------------------------------------------------

export interface WrkResult {
  requestsPerSecond: number;
  /** Latency percentiles, ms. */
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  socketErrors: number;
  /** Body + header bytes per second as wrk prints it (e.g. "1.61GB"). */
  transfer: string;
}

export interface WrkOptions {
  seconds: number;
  threads: number;
  connections: number;
}

export async function runWrk(wrk: string, url: string, options: WrkOptions): Promise<WrkResult> {
  const args = [`-t${options.threads}`, `-c${options.connections}`, `-d${options.seconds}s`, "--latency", url];
  const output = await new Promise<string>((resolve, reject) => {
    execFile(wrk, args, { timeout: (options.seconds + 30) * 1000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`wrk ${args.join(" ")} failed: ${error.message}\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });
  return parseWrk(output);
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

export function parseWrk(output: string): WrkResult {
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(output);
  if (!rps) throw new Error(`cannot parse wrk output:\n${output}`);
  const percentile = (p: string) => {
    const match = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m").exec(output);
    return match ? Number(match[1]) * (UNIT_MS[match[2] as string] ?? NaN) : NaN;
  };
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  return {
    requestsPerSecond: Number(rps[1]),
    p50: percentile("50"),
    p99: percentile("99"),
    requests: Number(/^\s+(\d+) requests in/m.exec(output)?.[1] ?? NaN),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0),
    socketErrors: socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    transfer: /^Transfer\/sec:\s+(\S+)/m.exec(output)?.[1] ?? "?",
  };
}

/** One line per run, in the layout of bench/autocannon.ts's `row` (finer latencies: these are sub-ms). */
export function wrkRow(name: string, r: WrkResult): string {
  return `${name.padEnd(36)} ${r.requestsPerSecond.toFixed(0).padStart(7)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99
    .toFixed(2)
    .padStart(6)} ms   ${r.transfer.padStart(8)}/s   non-2xx ${r.non2xx}   errors ${r.socketErrors}`;
}

// ---- nginx ---------------------------------------------------------------------------------

export interface Nginx {
  baseUrl: string;
  workers: string;
  stop(): Promise<void>;
}

/**
 * nginx (daemon off, its own config, pid, logs and temp paths in a temp dir) serving `root` from
 * disk on a free loopback port, as a child process of this one.
 */
export async function startNginx(nginx: string, root: string, workers: "1" | "auto"): Promise<Nginx> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "sieve-bench-nginx-"));
  const port = await freePort();
  const conf = path.join(dir, "nginx.conf");
  const errorLog = path.join(dir, "error.log");
  const asRoot = process.getuid?.() === 0;
  await writeFile(
    conf,
    [
      // Workers would switch to nobody/www-data and could not read a private temp dir.
      ...(asRoot ? ["user root;"] : []),
      "daemon off;",
      `worker_processes ${workers};`,
      `error_log ${errorLog} warn;`,
      `pid ${path.join(dir, "nginx.pid")};`,
      "events { worker_connections 1024; }",
      "http {",
      "  types { image/webp webp; image/jpeg jpg; }",
      "  default_type application/octet-stream;",
      "  access_log off;",
      "  sendfile on;",
      "  tcp_nopush on;",
      // nginx closes a keep-alive connection after 1000 requests by default; Node never does.
      "  keepalive_requests 1000000;",
      "  open_file_cache max=100;",
      ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((t) => `  ${t}_temp_path ${path.join(dir, t)};`),
      `  server { listen 127.0.0.1:${port}; root ${root}; }`,
      "}",
      "",
    ].join("\n"),
  );
  const child = spawn(nginx, ["-c", conf, "-p", dir, "-e", errorLog], { stdio: ["ignore", "pipe", "pipe"] });
  const output: string[] = [];
  child.stdout?.on("data", (d: Buffer) => output.push(d.toString()));
  child.stderr?.on("data", (d: Buffer) => output.push(d.toString()));
  const stop = async () => {
    await stopChild(child);
    await rm(dir, { recursive: true, force: true });
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) break;
    if (await canConnect(port)) return { baseUrl, workers, stop };
    await sleep(50);
  }
  const log = await readFile(errorLog, "utf8").catch(() => "");
  await stop();
  throw new Error(`nginx did not start (worker_processes ${workers}): ${output.join("")}${log}`.trim());
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM"); // nginx: fast shutdown, the master stops its workers
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

/**
 * Plain Node `http` answering every request with the file's bytes from memory (`res.end(buf)`,
 * Content-Type and Content-Length only): the ceiling of any Node server on this machine.
 */
export async function startPlainNode(file: string, contentType: string): Promise<{ baseUrl: string; stop(): Promise<void> }> {
  const port = await freePort();
  const code =
    `const b = require("fs").readFileSync(process.env.BENCH_FILE);` +
    `require("http").createServer((q, s) => { s.writeHead(200, { "Content-Type": process.env.BENCH_TYPE, "Content-Length": b.length }); s.end(b); })` +
    `.listen(Number(process.env.BENCH_PORT), "127.0.0.1");`;
  const child = spawn(process.execPath, ["-e", code], { env: { ...process.env, BENCH_FILE: file, BENCH_TYPE: contentType, BENCH_PORT: String(port) }, stdio: "ignore" });
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && child.exitCode === null) {
    if (await canConnect(port)) return { baseUrl: `http://127.0.0.1:${port}`, stop: () => stopChild(child) };
    await sleep(50);
  }
  await stopChild(child);
  throw new Error("the plain Node server did not start");
}

/**
 * Shares of all cores' CPU time over `ms` (/proc): in use at all, and by the process `pid` (with
 * the bench idle, the rest is other work on this machine). Null where /proc is absent.
 */
export async function cpuBusy(pid: number, ms = 2000): Promise<{ busy: number; process: number } | null> {
  const sample = async () => {
    const v = ((await readFile("/proc/stat", "utf8")).split("\n", 1)[0] as string).trim().split(/\s+/).slice(1).map(Number);
    // /proc/<pid>/stat after the parenthesised command name: state (field 3) ... utime (14), stime (15).
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const own = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { idle: (v[3] ?? 0) + (v[4] ?? 0), total: v.reduce((a, b) => a + b, 0), process: Number(own[11]) + Number(own[12]) };
  };
  try {
    const a = await sample();
    await sleep(ms);
    const b = await sample();
    const total = Math.max(1, b.total - a.total);
    return { busy: 1 - (b.idle - a.idle) / total, process: (b.process - a.process) / total };
  } catch {
    return null;
  }
}
