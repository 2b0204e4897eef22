import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMigratedDatabase, type MigratedDatabase } from "@/tests/support/migrated-database";
import { withTransaction } from "./transaction";

/**
 * A connection lost in the middle of a transaction (the database shutting down or restarting):
 * the transaction fails like any failed statement, nothing is thrown outside it, and the pool
 * serves the next transaction on a fresh connection.
 */
let database: MigratedDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  database = await startMigratedDatabase("transaction");
  pool = database.pool({ max: 2 });
}, 120_000);

afterAll(async () => {
  await database?.stop();
});

describe("withTransaction", () => {
  it("fails, without an uncaught error, when its connection ends between two statements, and the pool goes on", async () => {
    const uncaught: unknown[] = [];
    const record = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", record);
    try {
      const outcome = withTransaction(pool, async (client) => {
        const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
        // Ended by the server while no statement of ours runs on it.
        await pool.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
        await new Promise((resolve) => setTimeout(resolve, 200));
        await client.query("SELECT 1");
        return "committed";
      });
      await expect(outcome).rejects.toThrow();
      expect(uncaught).toEqual([]);
      expect(await withTransaction(pool, async (client) => (await client.query<{ one: number }>("SELECT 1 AS one")).rows[0]!.one)).toBe(1);
    } finally {
      process.off("uncaughtException", record);
    }
  });
});
