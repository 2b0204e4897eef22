import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { bindMigrationAwareSqlAdapterFactory } from "@prisma/driver-adapter-utils";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startEmbeddedPostgres, type EmbeddedPostgres } from "@/lib/db/embedded";
import { applyMigrations, checksumMatches, MigrationError } from "@/lib/db/migrate";
import type { SchemaEngine } from "@prisma/schema-engine-wasm";
import { loadSchemaEngine, migrationList } from "@/scripts/new-migration";

// One embedded cluster for the file; each test gets its own database in it.
let tmp: string;
let server: EmbeddedPostgres;
let dbCounter = 0;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "sieve-migrate-"));
  chmodSync(tmp, 0o755); // as root, PostgreSQL runs as `postgres` and must traverse it
  server = await startEmbeddedPostgres({ dataDir: path.join(tmp, "data"), port: 0 });
});

afterAll(async () => {
  await server?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The server's URL for another database (its query, the socket directory, stays). */
function databaseUrl(name: string): string {
  const url = new URL(server.url);
  url.pathname = `/${name}`;
  return url.toString();
}

async function freshDatabase(): Promise<string> {
  const name = `t${++dbCounter}`;
  await withClient(databaseUrl("postgres"), (c) => c.query(`CREATE DATABASE ${name}`));
  return databaseUrl(name);
}

/** A migrations directory with the given `name -> sql` entries. */
function migrationsDir(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmp, "migrations-"));
  for (const [name, sql] of Object.entries(files)) writeMigration(dir, name, sql);
  return dir;
}

function writeMigration(dir: string, name: string, sql: string): void {
  mkdirSync(path.join(dir, name), { recursive: true });
  writeFileSync(path.join(dir, name, "migration.sql"), sql);
}

interface Row {
  id: string;
  checksum: string;
  migration_name: string;
  started_at: Date;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  logs: string | null;
  applied_steps_count: number;
}

const history = (url: string) =>
  withClient(url, async (c) => (await c.query<Row>("SELECT * FROM _prisma_migrations ORDER BY started_at")).rows);

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

/**
 * @prisma/adapter-pg's executeScript splits scripts on every ";" (breaking `$$` function bodies);
 * Prisma's native engine sends a migration as one script, and so does this wrapper.
 */
class WholeScriptPrismaPg extends PrismaPg {
  override async connect() {
    const adapter = await super.connect();
    const client = (adapter as unknown as { client: { query(sql: string): Promise<unknown> } }).client;
    adapter.executeScript = async (script: string) => {
      await client.query(script);
    };
    return adapter;
  }
}

/** Prisma's schema engine (what `prisma migrate deploy/status` run) on `url` and `dir`. */
async function withEngine<T>(
  url: string,
  dir: string,
  fn: (engine: SchemaEngine, list: Awaited<ReturnType<typeof migrationList>>) => Promise<T>,
): Promise<T> {
  const { SchemaEngine } = await loadSchemaEngine();
  // Our own pool, ended afterwards: the engine holds Prisma's advisory lock until its connection closes.
  const pool = new pg.Pool({ connectionString: url });
  const engine = await SchemaEngine.new(
    { datamodels: [["prisma/schema.prisma", readFileSync("prisma/schema.prisma", "utf8")]] },
    () => {},
    bindMigrationAwareSqlAdapterFactory(new WholeScriptPrismaPg(pool)),
  );
  try {
    return await fn(engine, await migrationList(dir));
  } finally {
    engine.free();
    await pool.end();
  }
}

const filters = { externalTables: [], externalEnums: [] };

const FIRST = "-- CreateTable\nCREATE TABLE \"a\" (\"id\" INTEGER NOT NULL PRIMARY KEY);\n";
const SECOND = "CREATE TABLE \"b\" (\"id\" INTEGER);\nINSERT INTO \"b\" VALUES (1), (2);\n";

describe("applyMigrations", () => {
  it("applies pending migrations once, in name order, recorded like Prisma", async () => {
    const url = await freshDatabase();
    const dir = migrationsDir({ "20250102000000_second": SECOND, "20250101000000_first": FIRST });

    expect((await applyMigrations(url, dir)).applied).toEqual(["20250101000000_first", "20250102000000_second"]);
    const rows = await history(url);
    expect(rows.map((r) => [r.migration_name, r.checksum])).toEqual([
      ["20250101000000_first", sha256(FIRST)],
      ["20250102000000_second", sha256(SECOND)],
    ]);
    for (const r of rows) {
      expect(r.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(r).toMatchObject({ applied_steps_count: 1, logs: null, rolled_back_at: null });
      expect(r.finished_at!.getTime()).toBeGreaterThanOrEqual(r.started_at.getTime());
    }
    await withClient(url, async (c) => expect((await c.query("SELECT count(*)::int AS n FROM b")).rows).toEqual([{ n: 2 }]));

    expect(await applyMigrations(url, dir)).toEqual({ applied: [], warnings: [] });
    expect(await history(url)).toHaveLength(2);
  });

  it("warns about an applied migration whose file changed, without re-applying it", async () => {
    const url = await freshDatabase();
    const dir = migrationsDir({ "1_first": FIRST });
    await applyMigrations(url, dir);
    writeMigration(dir, "1_first", `${FIRST}-- edited\n`);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const result = await applyMigrations(url, dir);
      expect(result.applied).toEqual([]);
      expect(result.warnings).toEqual([expect.stringContaining("1_first was modified")]);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining("1_first"));
    } finally {
      warn.mockRestore();
    }
  });

  it("records a failed migration, rolls it back, and blocks later runs until it is resolved", async () => {
    const url = await freshDatabase();
    const bad = "CREATE TABLE \"c\" (\"id\" INTEGER);\nSELECT * FROM \"missing_table\";\n";
    const dir = migrationsDir({ "1_first": FIRST, "2_bad": bad, "3_after": SECOND });

    const error = await applyMigrations(url, dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as MigrationError).code).toBe("P3018");
    expect((error as Error).message).toContain("2_bad");
    expect((error as Error).message).toContain("42P01");

    const rows = await history(url);
    expect(rows.map((r) => r.migration_name)).toEqual(["1_first", "2_bad"]);
    expect(rows[1]).toMatchObject({ checksum: sha256(bad), finished_at: null, applied_steps_count: 0, rolled_back_at: null });
    expect(rows[1]!.logs).toContain("relation \"missing_table\" does not exist");
    const tables = await withClient(url, async (c) =>
      (await c.query("SELECT to_regclass('c') AS c, to_regclass('b') AS b")).rows[0],
    );
    expect(tables).toEqual({ c: null, b: null }); // rolled back, and nothing after it ran

    // Prisma's engine sees the same failed migration (`migrate deploy` would stop with P3009 too).
    await withEngine(url, dir, async (engine, list) => {
      const diagnosis = await engine.diagnoseMigrationHistory({ migrationsList: list, optInToShadowDatabase: false, filters });
      expect(diagnosis.failedMigrationNames).toEqual(["2_bad"]);
    });

    const blocked = await applyMigrations(url, dir).catch((e: unknown) => e);
    expect((blocked as MigrationError).code).toBe("P3009");
    expect((blocked as Error).message).toMatch(/Migration 2_bad \(started at .*\) failed/);

    // Resolution as the error advises: fix the file, mark the failed attempt rolled back.
    writeMigration(dir, "2_bad", "CREATE TABLE \"c\" (\"id\" INTEGER);\n");
    await withClient(url, (c) =>
      c.query("UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = '2_bad' AND finished_at IS NULL"),
    );
    expect((await applyMigrations(url, dir)).applied).toEqual(["2_bad", "3_after"]);
  });

  it("lets concurrent callers apply each migration exactly once", async () => {
    const url = await freshDatabase();
    const dir = migrationsDir({
      "1_first": FIRST,
      "2_slow": "SELECT pg_sleep(0.2);\nCREATE TABLE \"s\" (\"id\" INTEGER);\n",
      "3_second": SECOND,
    });
    const results = await Promise.all([1, 2, 3, 4].map(() => applyMigrations(url, dir)));
    expect(results.flatMap((r) => r.applied).sort()).toEqual(["1_first", "2_slow", "3_second"]);
    expect(results.filter((r) => r.applied.length > 0)).toHaveLength(1);
    expect((await history(url)).map((r) => r.migration_name)).toEqual(["1_first", "2_slow", "3_second"]);
  });

  it("refuses a non-empty database without migration history (P3005)", async () => {
    const url = await freshDatabase();
    await withClient(url, (c) => c.query("CREATE TABLE legacy (id int)"));
    const error = await applyMigrations(url, migrationsDir({ "1_first": FIRST })).catch((e: unknown) => e);
    expect((error as MigrationError).code).toBe("P3005");
  });

  it("matches checksums the way Prisma does (CRLF checkouts, legacy unpadded hex)", () => {
    const lf = "CREATE TABLE x (id int);\nSELECT 1;\n";
    expect(checksumMatches(lf.replace(/\n/g, "\r\n"), sha256(lf))).toBe(true);
    const unpadded = [...createHash("sha256").update(lf).digest()].map((b) => b.toString(16)).join("");
    expect(unpadded.length).toBeLessThan(64); // this script's digest has bytes below 0x10
    expect(checksumMatches(lf, unpadded)).toBe(true);
    expect(checksumMatches(`${lf} `, sha256(lf))).toBe(false);
  });
});

describe("prisma/migrations", () => {
  it("applies to PostgreSQL, and Prisma's own engine agrees with the recorded history", async () => {
    const url = await freshDatabase();
    const { applied } = await applyMigrations(url);
    expect(applied.length).toBeGreaterThan(0);
    expect(applied.at(-1)).toBe((await migrationList()).migrationDirectories.at(-1)?.path);

    // The schema engine reads our rows as fully applied and has nothing left to deploy.
    await withEngine(url, "prisma/migrations", async (engine, list) => {
      const diagnosis = await engine.diagnoseMigrationHistory({ migrationsList: list, optInToShadowDatabase: false, filters });
      expect(diagnosis).toMatchObject({ editedMigrationNames: [], failedMigrationNames: [], hasMigrationsTable: true, history: null });
      expect((await engine.applyMigrations({ migrationsList: list, filters })).appliedMigrationNames).toEqual([]);
    });
  });

  it("accepts a history written by Prisma's engine (`migrate deploy`) as up to date", async () => {
    const url = await freshDatabase();
    const deployed = await withEngine(url, "prisma/migrations", async (engine, list) =>
      (await engine.applyMigrations({ migrationsList: list, filters })).appliedMigrationNames,
    );
    expect(deployed.length).toBeGreaterThan(0);
    expect(await applyMigrations(url)).toEqual({ applied: [], warnings: [] });
  });
});
