import { createHash, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import pg from "pg";

/**
 * Our `prisma migrate deploy`: the Prisma CLI needs a schema-engine binary that cannot be
 * downloaded everywhere. It reads Prisma's migration layout and keeps Prisma's history table
 * (`_prisma_migrations`) exactly as the schema engine does, so `prisma migrate deploy/status/
 * resolve` keep working against a database migrated by this runner and vice versa.
 *
 * Difference from Prisma: each migration runs inside a transaction (Prisma runs the script as one
 * multi-statement query, i.e. an implicit transaction too, unless the script has its own
 * BEGIN/COMMIT). A failed migration is therefore rolled back before it is recorded as failed.
 */

/** The schema engine's advisory lock key, so this runner and `prisma migrate` exclude each other. */
const PRISMA_LOCK_KEY = 72707369;

/** Prisma's DDL for the history table, verbatim from the schema engine (PostgreSQL flavour). */
const CREATE_MIGRATIONS_TABLE = `CREATE TABLE _prisma_migrations (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
);`;

export interface LocalMigration {
  /** Directory name, e.g. `20250101120000_init`. */
  name: string;
  sql: string;
  /** sha256 hex of migration.sql's bytes, as Prisma records it. */
  checksum: string;
}

export interface MigrationResult {
  /** Names of the migrations applied by this call, in order. */
  applied: string[];
  /** Edited or missing migrations (also printed with console.warn). */
  warnings: string[];
}

/** Carries Prisma's error code (P3005, P3009, P3015, P3018) for the same situations. */
export class MigrationError extends Error {
  constructor(
    readonly code: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`${message} [${code}]`, options);
    this.name = "MigrationError";
  }
}

interface MigrationRow {
  migration_name: string;
  checksum: string;
  started_at: Date;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  logs: string | null;
}

/** Reads `<dir>/<name>/migration.sql` in name order (Prisma's order); no directory = no migrations. */
export async function readMigrations(migrationsDir = "prisma/migrations"): Promise<LocalMigration[]> {
  const dir = path.resolve(migrationsDir);
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return [];
    throw err;
  });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const file = path.join(dir, name, "migration.sql");
      const bytes = await fs.readFile(file).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== "ENOENT") throw err;
        throw new MigrationError("P3015", `Could not find the migration file at ${file}. ` +
          "Delete the directory or restore the migration file.");
      });
      return { name, sql: bytes.toString("utf8"), checksum: sha256(bytes) };
    }),
  );
}

export async function applyMigrations(
  databaseUrl: string,
  migrationsDir = "prisma/migrations",
): Promise<MigrationResult> {
  const local = await readMigrations(migrationsDir);
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on("error", () => {}); // connection failures surface through the awaited queries
  await client.connect().catch((err: Error) => {
    throw new Error(`Cannot connect to the database at ${redact(databaseUrl)}: ${err.message}`, { cause: err });
  });
  try {
    // Session-level lock: concurrent starters (and `prisma migrate`) wait here, then see the
    // history the first one wrote.
    await client.query("SELECT pg_advisory_lock($1)", [PRISMA_LOCK_KEY]);
    try {
      return await migrate(client, local);
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [PRISMA_LOCK_KEY]).catch(() => {});
    }
  } finally {
    await client.end().catch(() => {});
  }
}

async function migrate(client: pg.Client, local: LocalMigration[]): Promise<MigrationResult> {
  // Qualified name: a migration that changes search_path must not redirect our bookkeeping.
  const schema = (await client.query<{ s: string | null }>("SELECT current_schema() AS s")).rows[0]?.s ?? "public";
  const table = `${client.escapeIdentifier(schema)}._prisma_migrations`;
  await ensureHistoryTable(client, schema);

  const rows = (
    await client.query<MigrationRow>(
      `SELECT migration_name, checksum, started_at, finished_at, rolled_back_at, logs
         FROM ${table} ORDER BY started_at ASC`,
    )
  ).rows;

  const failed = rows.find((r) => r.finished_at === null && r.rolled_back_at === null);
  if (failed) throw blockedError(failed);

  const applied = new Map(rows.filter((r) => r.rolled_back_at === null).map((r) => [r.migration_name, r]));
  const warnings: string[] = [];
  for (const m of local) {
    const row = applied.get(m.name);
    if (row && !checksumMatches(m.sql, row.checksum)) {
      warnings.push(`Migration ${m.name} was modified after it was applied (checksum differs from _prisma_migrations).`);
    }
  }
  const localNames = new Set(local.map((m) => m.name));
  for (const name of applied.keys()) {
    if (!localNames.has(name)) warnings.push(`Migration ${name} is applied in the database but missing locally.`);
  }
  for (const w of warnings) console.warn(`warning: ${w}`);

  const done: string[] = [];
  for (const m of local) {
    if (applied.has(m.name)) continue;
    await applyOne(client, table, m);
    done.push(m.name);
  }
  return { applied: done, warnings };
}

/** Creates the history table like `migrate deploy`, including its refusal of unrelated schemas. */
async function ensureHistoryTable(client: pg.Client, schema: string): Promise<void> {
  const { rows } = await client.query<{ has_table: boolean; objects: number }>(
    `SELECT EXISTS (SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                     WHERE n.nspname = $1 AND c.relname = '_prisma_migrations') AS has_table,
            (SELECT count(*)::int FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f'))
          + (SELECT count(*)::int FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
              WHERE n.nspname = $1 AND t.typtype = 'e') AS objects`,
    [schema],
  );
  const state = rows[0];
  if (state?.has_table) return;
  if (state && state.objects > 0) {
    throw new MigrationError("P3005", `The database schema "${schema}" is not empty and has no _prisma_migrations ` +
      "table; refusing to migrate a database these migrations did not create. " +
      "Baseline it first: https://pris.ly/d/migrate-baseline");
  }
  await client.query(CREATE_MIGRATIONS_TABLE); // unqualified, like Prisma: lands in current_schema()
}

async function applyOne(client: pg.Client, table: string, m: LocalMigration): Promise<void> {
  const id = randomUUID();
  const startedAt = new Date();
  try {
    await client.query("BEGIN");
    await client.query(m.sql); // no parameters: simple protocol, so multi-statement scripts work
    await client.query(
      `INSERT INTO ${table} (id, checksum, started_at, finished_at, migration_name, applied_steps_count)
       VALUES ($1, $2, $3, $4, $5, 1)`,
      [id, m.checksum, startedAt, new Date(), m.name],
    );
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    const logs = describeDbError(err);
    // Recorded like Prisma's failed migration (finished_at NULL, logs set): blocks later runs.
    await client
      .query(
        `INSERT INTO ${table} (id, checksum, started_at, migration_name, logs, applied_steps_count)
         VALUES ($1, $2, $3, $4, $5, 0)`,
        [id, m.checksum, startedAt, m.name, logs],
      )
      .catch(() => {});
    throw new MigrationError(
      "P3018",
      `Migration ${m.name} failed to apply; it was rolled back and recorded as failed.\n\n${logs}\n\n` +
        resolveAdvice(m.name),
      { cause: err },
    );
  }
}

function blockedError(row: MigrationRow): MigrationError {
  const logs = row.logs ? `\n\n${row.logs}` : "";
  return new MigrationError(
    "P3009",
    `Migration ${row.migration_name} (started at ${row.started_at.toISOString()}) failed; ` +
      `no further migrations will be applied until it is resolved.${logs}\n\n${resolveAdvice(row.migration_name)}`,
  );
}

function resolveAdvice(name: string): string {
  return (
    "Fix the migration, undo any partial changes it left (this runner rolls its own failures back), " +
    "then mark it rolled back and start again:\n" +
    `  UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = '${name}' AND finished_at IS NULL;\n` +
    `(equivalent to \`prisma migrate resolve --rolled-back ${name}\`).`
  );
}

/** Database error code and message, in the shape Prisma writes into `logs`. */
function describeDbError(err: unknown): string {
  const e = err as Partial<pg.DatabaseError>;
  if (!e || typeof e.code !== "string" || typeof e.severity !== "string") return String(err);
  const lines = [`Database error code: ${e.code}`, "", "Database error:", `${e.severity}: ${e.message}`];
  if (e.detail) lines.push(`DETAIL: ${e.detail}`);
  if (e.hint) lines.push(`HINT: ${e.hint}`);
  if (e.position) lines.push(`POSITION: ${e.position}`);
  if (e.where) lines.push(`CONTEXT: ${e.where}`);
  return lines.join("\n");
}

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "DATABASE_URL";
  }
}

function sha256(data: string | Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * The schema engine's comparison: line endings may differ (git on Windows), and early Prisma
 * versions wrote checksums without zero-padding each byte.
 */
export function checksumMatches(sql: string, checksum: string): boolean {
  const variants = [sql, sql.replace(/\r\n/g, "\n"), sql.replace(/\n/g, "\r\n")];
  return variants.some((v) => {
    const digest = createHash("sha256").update(v).digest();
    const formatted = checksum.length === 64 ? digest.toString("hex") : [...digest].map((b) => b.toString(16)).join("");
    return formatted === checksum;
  });
}
