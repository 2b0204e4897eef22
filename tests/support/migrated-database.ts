import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type pg from "pg";
import { startEmbeddedPostgres } from "@/lib/db/embedded";
import { applyMigrations } from "@/lib/db/migrate";

/** A throw-away embedded PostgreSQL migrated from prisma/migrations, for tests of hand-written SQL. */
export interface MigratedDatabase {
  url: string;
  stop(): Promise<void>;
}

export async function startMigratedDatabase(name: string): Promise<MigratedDatabase> {
  const tmp = mkdtempSync(path.join(os.tmpdir(), `sieve-${name}-`));
  chmodSync(tmp, 0o755); // as root, PostgreSQL runs as `postgres` and must traverse it
  const server = await startEmbeddedPostgres({ dataDir: path.join(tmp, "data"), port: 0 });
  await applyMigrations(server.url);
  return {
    url: server.url,
    async stop() {
      await server.stop();
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** A project (and its owner) inserted straight into the database; returns its id. */
export async function insertProject(db: { query: pg.Pool["query"] }): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `WITH u AS (INSERT INTO users (id, email, updated_at) VALUES (gen_random_uuid(), gen_random_uuid() || '@x.test', now()) RETURNING id)
     INSERT INTO projects (id, name, owner_user_id, updated_at) SELECT gen_random_uuid(), 'p', u.id, now() FROM u RETURNING id`,
  );
  return rows[0]!.id;
}
