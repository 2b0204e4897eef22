import type pg from "pg";

/**
 * Runs `fn` inside a transaction on one pooled connection: COMMIT when it returns, ROLLBACK when it
 * throws. Throw `new Rollback(value)` to roll back without an error and return `value`.
 * For the hand-written SQL paths (executor, pipeline decision, outbox); Prisma code uses $transaction.
 */
export class Rollback<T> {
  constructor(readonly value: T) {}
}

export async function withTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    if (error instanceof Rollback) return error.value as T;
    throw error;
  } finally {
    client.release();
  }
}
