import { chmodSync, cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { startEmbeddedPostgres } from "@/lib/db/embedded";
import { endPool } from "@/lib/db/end-pool";
import { applyMigrations } from "@/lib/db/migrate";

const MIGRATIONS = "prisma/migrations";

/** A throw-away embedded PostgreSQL migrated from prisma/migrations, for tests of hand-written SQL. */
export interface MigratedDatabase {
  url: string;
  /** Applies the migrations left out (`before`): an upgrade. */
  upgrade(): Promise<void>;
  /** A connection pool to it, ended by stop() before the server stops (no session of it left open). */
  pool(config?: Omit<pg.PoolConfig, "connectionString">): pg.Pool;
  stop(): Promise<void>;
}

/** With `before` (a migration's directory name), only the migrations named before it are applied. */
export async function startMigratedDatabase(name: string, options: { before?: string } = {}): Promise<MigratedDatabase> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), `sieve-${name}-`));
  chmodSync(tmp, 0o755); // as root, PostgreSQL runs as `postgres` and must traverse it
  let migrations = MIGRATIONS;
  if (options.before) {
    migrations = path.join(tmp, "migrations");
    for (const entry of readdirSync(MIGRATIONS)) {
      if (entry < options.before) cpSync(path.join(MIGRATIONS, entry), path.join(migrations, entry), { recursive: true });
    }
  }
  const server = await startEmbeddedPostgres({ dataDir: path.join(tmp, "data"), port: 0 });
  await applyMigrations(server.url, migrations);
  const pools: pg.Pool[] = [];
  return {
    url: server.url,
    async upgrade() {
      await applyMigrations(server.url);
    },
    pool(config = {}) {
      const pool = new pg.Pool({ ...config, connectionString: server.url });
      pools.push(pool);
      return pool;
    },
    async stop() {
      await Promise.all(pools.splice(0).map(endPool));
      await server.stop();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/**
 * A throw-away migrated database and a connected client for the calling test file (its own
 * beforeAll and afterAll); read `client` and `database` inside tests.
 */
export function migratedClient(name: string, options: { before?: string } = {}): { database: MigratedDatabase; client: pg.Client } {
  const state = {} as { database: MigratedDatabase; client: pg.Client };
  beforeAll(async () => {
    state.database = await startMigratedDatabase(name, options);
    state.client = new pg.Client({ connectionString: state.database.url });
    await state.client.connect();
  }, 120_000);
  afterAll(async () => {
    await state.client?.end();
    await state.database?.stop();
  });
  return state;
}

/** A project (and its owner) inserted straight into the database; returns its id. */
export async function insertProject(db: { query: pg.Pool["query"] }): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `WITH u AS (INSERT INTO users (id, email, updated_at) VALUES (gen_random_uuid(), gen_random_uuid() || '@x.test', now()) RETURNING id)
     INSERT INTO projects (id, name, owner_user_id, updated_at) SELECT gen_random_uuid(), 'p', u.id, now() FROM u RETURNING id`,
  );
  return rows[0]!.id;
}

export interface ConnectorOptions {
  eventTypes?: string[];
  enabled?: boolean;
}

/** An enabled webhook connector of `projectId` (to https://example.test/hook), created a minute ago; returns its id. */
export async function insertConnector(db: { query: pg.Pool["query"] }, projectId: string, options: ConnectorOptions = {}): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO connectors (id, project_id, type, name, url, event_types, secret, enabled, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, 'webhook', 'hook', 'https://example.test/hook', $2, 'whsec_x', $3, now() - interval '1 minute', now())
     RETURNING id`,
    [projectId, options.eventTypes ?? [], options.enabled ?? true],
  );
  return rows[0]!.id;
}
