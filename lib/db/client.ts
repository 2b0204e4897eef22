import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/lib/db/generated/client";

export type Db = PrismaClient;

/**
 * Kept on globalThis under a registry symbol: Next.js route bundles, the custom server and scripts
 * may each load their own copy of this module, but one process must have one pool.
 */
const KEY = Symbol.for("sieve.db");
type Store = typeof globalThis & { [KEY]?: PrismaClient };
const store = globalThis as Store;

/** The process-wide Prisma client; DATABASE_URL is set by ensureDatabase() or the environment. */
export function db(): PrismaClient {
  const existing = store[KEY];
  if (existing) return existing;
  const connectionString = process.env.DATABASE_URL;
  if (!connectionString) {
    throw new Error("DATABASE_URL is not set: call ensureDatabase() (lib/db/database.ts) before using db().");
  }
  const adapter = new PrismaPg(
    { connectionString, max: poolSize() },
    // Idle connections dropped by the server (restart, failover) are replaced on next use.
    { onPoolError: (err) => console.warn(`database pool: idle connection error: ${err.message}`) },
  );
  const client = new PrismaClient({ adapter });
  store[KEY] = client;
  return client;
}

/** Closes the pool; the next db() call opens a new one (e.g. after DATABASE_URL changed). */
export async function disconnectDb(): Promise<void> {
  const client = store[KEY];
  if (!client) return;
  delete store[KEY];
  await client.$disconnect();
}

/** DATABASE_POOL_SIZE: connections per process (default 10, node-postgres' default). */
function poolSize(): number {
  const raw = process.env.DATABASE_POOL_SIZE;
  if (raw === undefined || raw === "") return 10;
  const size = Number(raw);
  if (!Number.isInteger(size) || size < 1) {
    throw new Error(`Invalid configuration: DATABASE_POOL_SIZE must be a positive integer (got "${raw}").`);
  }
  return size;
}
