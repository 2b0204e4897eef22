import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "@/lib/db/embedded";
import { disconnectDb, sqlPool } from "@/lib/db/client";

/**
 * The process's pool against a real PostgreSQL: the server's shutdown calls disconnectDb and stops
 * the embedded database right after, so no session of the pool may still be open by then.
 */
let tmp: string;
let server: EmbeddedPostgres;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "sieve-db-client-"));
  chmodSync(tmp, 0o755); // as root, PostgreSQL runs as `postgres` and must traverse it
  server = await startEmbeddedPostgres({ dataDir: path.join(tmp, "data"), port: 0 });
  vi.stubEnv("DATABASE_URL", server.url);
}, 120_000);

afterAll(async () => {
  await disconnectDb();
  await server?.stop();
  vi.unstubAllEnvs();
  rmSync(tmp, { recursive: true, force: true });
});

/** `count` connections of the pool, idle once their queries are over; counts those whose connection ended. */
async function idleConnections(pool: pg.Pool, count: number) {
  const state = { connected: 0, ended: 0 };
  pool.on("connect", (client) => {
    state.connected++;
    client.once("end", () => state.ended++);
  });
  await Promise.all(Array.from({ length: count }, () => pool.query("SELECT pg_sleep(0.02)")));
  return state;
}

describe("disconnectDb", () => {
  it("resolves once every connection of the pool has closed, not when each was only asked to end", async () => {
    const pool = sqlPool();
    const state = await idleConnections(pool, 6);
    expect(state.connected).toBe(6);
    expect(pool.idleCount).toBe(6);

    await disconnectDb();
    expect(state.ended, "connections still open when disconnectDb resolved").toBe(6);
  });

  it("opens a new pool on the next use, which works", async () => {
    const before = sqlPool();
    await disconnectDb();
    const after = sqlPool();
    expect(after).not.toBe(before);
    expect((await after.query<{ one: number }>("SELECT 1 AS one")).rows[0]?.one).toBe(1);
  });
});
