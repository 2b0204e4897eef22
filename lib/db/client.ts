import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { config } from "@/lib/config";
import { PrismaClient } from "@/lib/db/generated/client";

export type Db = PrismaClient;

/**
 * Kept on globalThis under a registry symbol: Next.js route bundles, the custom server and scripts
 * may each load their own copy of this module, but one process must have one pool.
 */
const KEY = Symbol.for("sieve.db");
type Store = typeof globalThis & { [KEY]?: { client: PrismaClient; pool: pg.Pool } };
const store = globalThis as Store;

function open(): { client: PrismaClient; pool: pg.Pool } {
  const existing = store[KEY];
  if (existing) return existing;
  const connectionString = process.env.DATABASE_URL;
  if (!connectionString) {
    throw new Error("DATABASE_URL is not set: call ensureDatabase() (lib/db/database.ts) before using db().");
  }
  const pool = new pg.Pool({ connectionString, max: config().databasePoolSize });
  // Idle connections dropped by the server (restart, failover) are replaced on next use.
  pool.on("error", (err) => console.warn(`database pool: idle connection error: ${err.message}`));
  const client = new PrismaClient({ adapter: new PrismaPg(pool) });
  store[KEY] = { client, pool };
  return store[KEY];
}

/** The process-wide Prisma client; DATABASE_URL is set by ensureDatabase() or the environment. */
export function db(): PrismaClient {
  return open().client;
}

/**
 * The same connection pool, for the few hot-path statements written in SQL (authentication and
 * asset creation): a Prisma query costs about 1 ms of CPU here, a prepared pg query a fraction.
 */
export function sqlPool(): pg.Pool {
  return open().pool;
}

/** Closes the pool; the next db() call opens a new one (e.g. after DATABASE_URL changed). */
export async function disconnectDb(): Promise<void> {
  const opened = store[KEY];
  if (!opened) return;
  delete store[KEY];
  await opened.client.$disconnect();
  await opened.pool.end().catch(() => undefined);
}
