import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { config } from "@/lib/core/config";
import { PrismaClient } from "@/lib/db/generated/client";
import { existingSingleton, forgetSingleton, processSingleton } from "@/lib/core/singleton";
import { endPool } from "@/lib/db/end-pool";

export type Db = PrismaClient;

/** One pool per process, though Next.js route bundles, the server and scripts each load this module. */
const SLOT = "db";
interface Opened {
  client: PrismaClient;
  pool: pg.Pool;
}

function open(): Opened {
  return processSingleton(SLOT, connect);
}

function connect(): Opened {
  const connectionString = process.env.DATABASE_URL;
  if (!connectionString) {
    throw new Error("DATABASE_URL is not set: call ensureDatabase() (lib/db/database.ts) before using db().");
  }
  const pool = new pg.Pool({ connectionString, max: config().databasePoolSize });
  // Idle connections dropped by the server (restart, failover) are replaced on next use.
  pool.on("error", (err) => console.warn(`database pool: idle connection error: ${err.message}`));
  return { client: new PrismaClient({ adapter: new PrismaPg(pool) }), pool };
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

/**
 * Closes the pool, once every connection of it has closed (endPool); the next db() call opens a
 * new one (e.g. after DATABASE_URL changed).
 */
export async function disconnectDb(): Promise<void> {
  const opened = existingSingleton<Opened>(SLOT);
  if (!opened) return;
  forgetSingleton(SLOT);
  await opened.client.$disconnect();
  await endPool(opened.pool);
}
