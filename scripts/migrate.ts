/**
 * `npm run db:migrate`: starts the database (DATABASE_URL, else the embedded one in DATA_DIR),
 * applies pending migrations from prisma/migrations, reports them and stops again.
 */
import { ensureDatabase } from "@/lib/db/database";

try {
  const database = await ensureDatabase();
  await database.stop();
  const where = database.embedded ? "the embedded PostgreSQL" : "the DATABASE_URL database";
  if (database.applied.length === 0) {
    console.log(`No pending migrations: ${where} is up to date.`);
  } else {
    console.log(`Applied ${database.applied.length} migration(s) to ${where}:`);
    for (const name of database.applied) console.log(`  ${name}`);
  }
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
}
