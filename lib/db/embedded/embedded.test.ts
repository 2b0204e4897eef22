import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, chmodSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "@/lib/db/embedded";
import { socketDirFor } from "@/lib/db/embedded/server-process";
import { freePort } from "@/lib/db/embedded/postmaster";

// One cluster for the whole file (initdb ~1.5 s); every test starts and stops it on the same DATA_DIR.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
let dataDir: string;
const clusterDir = () => path.join(dataDir, "postgres");
const postmasterPid = () => Number.parseInt(readFileSync(path.join(clusterDir(), "postmaster.pid"), "utf8"), 10);

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

async function waitUntil(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), "sieve-embedded-"));
  chmodSync(dataDir, 0o755); // as root, PostgreSQL runs as `postgres` and must traverse it
  const pgServer = await startEmbeddedPostgres({ dataDir, port: 0 });
  await query(pgServer.url, "CREATE TABLE kept (v text); INSERT INTO kept VALUES ('before')");
  await pgServer.stop();
});

afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe("startEmbeddedPostgres", () => {
  it("reuses the initialised cluster, serves database sieve on 127.0.0.1 and its own Unix socket, and stops", async () => {
    const server = await startEmbeddedPostgres({ dataDir, port: 0 });
    expect(server.url).toMatch(/^postgresql:\/\/postgres:[0-9a-f]+@127\.0\.0\.1:\d+\/sieve\?host=[^&]+$/);
    expect(decodeURIComponent(server.url.split("?host=")[1] as string)).toBe(clusterDir());
    const [settings] = await query<Record<string, string>>(
      server.url,
      `SELECT current_database() AS db, current_setting('listen_addresses') AS listen,
              current_setting('unix_socket_directories') AS sockets, current_setting('fsync') AS fsync,
              current_setting('max_connections') AS max_connections, (SELECT v FROM kept) AS kept,
              coalesce(inet_client_addr()::text, 'unix socket') AS client`,
    );
    expect(settings).toEqual({
      db: "sieve", listen: "127.0.0.1", sockets: clusterDir(), fsync: "on", max_connections: "100", kept: "before",
      client: "unix socket",
    });
    expect(existsSync(path.join(clusterDir(), "PG_VERSION"))).toBe(true);
    const pid = postmasterPid();
    await server.stop();
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(path.join(clusterDir(), "postmaster.pid"))).toBe(false);
    await expect(query(server.url, "SELECT 1")).rejects.toThrow();
  });

  it("joins a server another start in this process already runs, without stopping it", async () => {
    const first = await startEmbeddedPostgres({ dataDir, port: 0 });
    const second = await startEmbeddedPostgres({ dataDir, port: 0 });
    expect(second.url).toBe(first.url);
    await second.stop();
    expect(await query(first.url, "SELECT 1 AS ok")).toEqual([{ ok: 1 }]);
    await first.stop();
  });

  it("restarts after the postgres process was SIGKILLed (stale postmaster.pid, crash recovery)", async () => {
    const first = await startEmbeddedPostgres({ dataDir, port: 0 });
    await query(first.url, "INSERT INTO kept VALUES ('committed before kill')");
    const pid = postmasterPid();
    process.kill(pid, "SIGKILL");
    await waitUntil(() => !isAlive(pid));
    expect(existsSync(path.join(clusterDir(), "postmaster.pid"))).toBe(true); // left behind

    const second = await startEmbeddedPostgres({ dataDir, port: 0 });
    const rows = await query<{ v: string }>(second.url, "SELECT v FROM kept ORDER BY v");
    expect(rows.map((r) => r.v)).toEqual(["before", "committed before kill"]);
    await first.stop(); // the dead server's handle must not touch the new postmaster
    expect(await query(second.url, "SELECT 1 AS ok")).toEqual([{ ok: 1 }]);
    await query(second.url, "DELETE FROM kept WHERE v <> 'before'");
    await second.stop();
  });

  it("starts when postmaster.pid names a live process that is not PostgreSQL (pid reuse)", async () => {
    const server = await startEmbeddedPostgres({ dataDir, port: 0 });
    const pidFile = path.join(clusterDir(), "postmaster.pid");
    const contents = readFileSync(pidFile, "utf8");
    const pid = postmasterPid();
    process.kill(pid, "SIGKILL");
    await waitUntil(() => !isAlive(pid));
    const impostor = spawn("sleep", ["30"], { stdio: "ignore" });
    try {
      writeFileSync(pidFile, contents.replace(/^\d+/, String(impostor.pid)));
      const restarted = await startEmbeddedPostgres({ dataDir, port: 0 });
      expect(await query(restarted.url, "SELECT count(*)::int AS n FROM kept")).toEqual([{ n: 1 }]);
      await restarted.stop();
      expect(isAlive(impostor.pid!)).toBe(true);
    } finally {
      impostor.kill();
      await server.stop();
    }
  });

  it("adopts and later stops a server orphaned by a SIGKILLed Node process", async () => {
    // A separate Node process starts the database, then dies without stopping it.
    const child: ChildProcess = spawn(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", `
        const { startEmbeddedPostgres } = await import(${JSON.stringify(path.join(root, "lib/db/embedded/index.ts"))});
        const s = await startEmbeddedPostgres({ dataDir: ${JSON.stringify(dataDir)}, port: 0 });
        console.log(s.url);
        setInterval(() => {}, 1000);`],
      { cwd: root, stdio: ["ignore", "pipe", "inherit"] },
    );
    const orphanUrl = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (c: Buffer) => {
        out += c.toString();
        if (out.includes("\n")) resolve(out.trim());
      });
      child.once("exit", (code) => reject(new Error(`child exited early (${code})`)));
    });
    const orphanPid = postmasterPid();
    child.kill("SIGKILL");
    await waitUntil(() => child.exitCode !== null || child.signalCode !== null);
    expect(isAlive(orphanPid)).toBe(true); // the postmaster survives its parent

    const adopted: EmbeddedPostgres = await startEmbeddedPostgres({ dataDir, port: 0 });
    expect(adopted.url).toBe(orphanUrl);
    expect(postmasterPid()).toBe(orphanPid);
    await adopted.stop(); // its owner is dead, so this process took over stopping it
    await waitUntil(() => !isAlive(orphanPid));
  });
});

describe("a cluster directory that cannot hold a Unix socket", () => {
  it("is served on TCP only, as before sockets were used", async () => {
    const port = await freePort();
    // A directory where the socket would go: PostgreSQL cannot bind its socket there.
    const blocker = path.join(clusterDir(), `.s.PGSQL.${port}`);
    mkdirSync(blocker);
    try {
      const server = await startEmbeddedPostgres({ dataDir, port });
      try {
        expect(server.url).toMatch(/^postgresql:\/\/postgres:[0-9a-f]+@127\.0\.0\.1:\d+\/sieve$/);
        const [settings] = await query<Record<string, string>>(server.url, "SELECT current_setting('unix_socket_directories') AS sockets, (SELECT v FROM kept) AS kept");
        expect(settings).toEqual({ sockets: "", kept: "before" });
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(blocker, { recursive: true, force: true });
    }
  });
});

describe("socketDirFor", () => {
  it("puts the socket in the cluster's directory, or none when the path would be too long for a socket", () => {
    expect(socketDirFor("/srv/sieve/.data/postgres", 5432)).toBe("/srv/sieve/.data/postgres");
    const deep = `/srv/${"d".repeat(90)}/postgres`; // with "/.s.PGSQL.5432": 118 bytes
    expect(socketDirFor(deep, 5432)).toBe("");
  });
});
