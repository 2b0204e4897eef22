import { config } from "@/lib/core/config";
import { disconnectDb } from "@/lib/db/client";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "@/lib/db/embedded";
import { applyMigrations } from "@/lib/db/migrate";

export interface Database {
  url: string;
  /** True when Sieve started (or joined) its own PostgreSQL under DATA_DIR. */
  embedded: boolean;
  /** Migrations applied by this call (usually none). */
  applied: string[];
  /** Closes this process's pool, then stops the embedded server if this process owns it. */
  stop(): Promise<void>;
}

/**
 * Makes the database usable: DATABASE_URL if configured, otherwise the embedded PostgreSQL in
 * DATA_DIR; then applies pending migrations and exports DATABASE_URL for db() and child processes.
 * Called by the server, the admin CLI and the test harness.
 */
export async function ensureDatabase(): Promise<Database> {
  const cfg = config();
  let url: string;
  let embedded: EmbeddedPostgres | undefined;
  if (cfg.databaseUrl) {
    url = cfg.databaseUrl;
  } else {
    embedded = await startEmbeddedPostgres({ dataDir: cfg.dataDir, port: cfg.embeddedPgPort });
    url = embedded.url;
  }
  const stop = async () => {
    await disconnectDb();
    await embedded?.stop();
  };
  let applied: string[];
  try {
    ({ applied } = await applyMigrations(url));
  } catch (err) {
    await stop();
    throw err;
  }
  process.env.DATABASE_URL = url;
  return { url, embedded: embedded !== undefined, applied, stop };
}
