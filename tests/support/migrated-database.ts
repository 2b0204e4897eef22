import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
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
