import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import type net from "node:net";
import path from "node:path";
import { type Account, type Binaries, permissionHint, serverEnv } from "@/lib/db/embedded/account";
import { OutputTail } from "@/lib/db/embedded/output";
import {
  freePort,
  isAlive,
  type PostmasterStatus,
  runningPostmaster,
  signalPostmaster,
  sleep,
  waitForExit,
} from "@/lib/db/embedded/postmaster";

/** Starting, adopting and stopping the server, and who is responsible for stopping it. */

/** `<dataDir>/postgres.owner`: pid of the Sieve process responsible for stopping the server. */
const OWNER_FILE = "postgres.owner";
const START_TIMEOUT_MS = 120_000; // crash recovery after a SIGKILL can take a while
const STOP_TIMEOUT_MS = 60_000;

export interface StartContext {
  dataDir: string;
  clusterDir: string;
  port: number;
  bin: Binaries;
  account: Account | undefined;
  password: string;
}

export interface Server {
  port: number;
  /** Where its Unix socket is; "" when it listens on TCP only (see socketDirFor). */
  socketDir: string;
  stop(): Promise<void>;
}

/** The longest Unix socket path Linux and macOS accept (sun_path is 108 and 104 bytes, with its NUL). */
const MAX_SOCKET_PATH = 103;

/**
 * The cluster's own directory holds its Unix socket, so clusters never share a socket or lock file
 * (as they would in /tmp). Local clients use it rather than TCP: a query's round trip costs less
 * CPU (measured with node-postgres, 3 × 20 000 round trips: the client 6–12 % less, PostgreSQL
 * 6–21 % less). A cluster whose path is too long for a socket listens on TCP only, and so does one whose
 * directory cannot hold a socket (some network and shared-folder file systems): startOrAdopt
 * starts it again without one.
 */
export function socketDirFor(clusterDir: string, port: number): string {
  return Buffer.byteLength(path.join(clusterDir, `.s.PGSQL.${port}`)) <= MAX_SOCKET_PATH ? clusterDir : "";
}

/**
 * PostgreSQL's errors when it cannot make its Unix socket ("could not create Unix socket for
 * address", "could not bind Unix address", "could not create any Unix-domain sockets"); not its
 * "listening on Unix socket", which a start that failed later (shared memory) has printed too.
 */
const UNIX_SOCKET_FAILURE = /could not (create|bind) Unix|Unix-domain socket/;

/**
 * Starts the postmaster, or adopts one already running on this cluster: another Sieve process
 * (e.g. the admin CLI next to the server) or one orphaned when its Sieve process was SIGKILLed.
 * A stale postmaster.pid of a dead postmaster is removed by PostgreSQL itself; the loop retries
 * while the dead postmaster's children still hold its shared memory.
 */
export async function startOrAdopt(ctx: StartContext): Promise<Server> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let lastOutput = "";
  let unixSocket = true;
  while (Date.now() < deadline) {
    const running = await runningPostmaster(ctx.clusterDir);
    if (running) {
      if (running.status === "ready" && running.port > 0) return adopt(ctx, running);
      await sleep(100); // starting up or shutting down
      continue;
    }
    const port = ctx.port || (await freePort());
    const outcome = await launch(ctx, port, unixSocket ? socketDirFor(ctx.clusterDir, port) : "", deadline);
    if ("server" in outcome) return outcome.server;
    lastOutput = outcome.output;
    if (unixSocket && UNIX_SOCKET_FAILURE.test(lastOutput)) {
      unixSocket = false; // TCP only, as before sockets were used
      continue;
    }
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
  socketDir: string,
  deadline: number,
): Promise<{ server: Server } | { output: string; how: string }> {
  const args = [
    "-D", ctx.clusterDir,
    "-p", String(port),
    "-c", "listen_addresses=127.0.0.1",
    "-c", `unix_socket_directories=${socketDir}`,
    "-c", "unix_socket_permissions=0700",
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
    server: ownedServer(ctx, pid, port, socketDir, () => {
      stopping = true;
    }),
  };
}

async function adopt(ctx: StartContext, running: PostmasterStatus): Promise<Server> {
  const ownerFile = path.join(ctx.dataDir, OWNER_FILE);
  const owner = Number.parseInt(await fs.readFile(ownerFile, "utf8").catch(() => ""), 10);
  const ownerAlive = Number.isInteger(owner) && owner > 0 && (owner === process.pid || isAlive(owner));
  if (ownerAlive) return { port: running.port, socketDir: running.socketDir, stop: async () => {} }; // theirs to stop
  // Orphaned by a crashed Sieve process: take over responsibility for stopping it.
  await fs.writeFile(ownerFile, `${process.pid}\n`);
  return ownedServer(ctx, running.pid, running.port, running.socketDir, () => {});
}

/** A server this process stops: on stop(), and on process exit as a fallback. */
function ownedServer(ctx: StartContext, pid: number, port: number, socketDir: string, onStopping: () => void): Server {
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
  return { port, socketDir, stop: () => (stopped ??= stop()) };
}
