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
  // A checked-out client has no listener of the pool's: a connection lost between two statements
  // (the server shutting down or restarting) would be an uncaught error event. Kept here instead,
  // it fails the next statement, and the broken connection is destroyed rather than pooled again.
  let lost: Error | undefined;
  const onError = (error: Error) => {
    lost = error;
  };
  client.on("error", onError);
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
    client.off("error", onError);
    client.release(lost);
  }
}
