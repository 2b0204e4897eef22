import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { type Account, type Binaries, permissionHint } from "@/lib/db/embedded/account";
import { runToExit } from "@/lib/db/embedded/output";

/** Cluster initialisation: the `<dataDir>/postgres` data directory, made once by initdb. */

export const SUPERUSER = "postgres";
/** Random superuser password, written into the cluster directory at initdb time. */
export const PASSWORD_FILE = "sieve-password";

/**
 * Settings written to postgresql.conf by initdb (so ALTER SYSTEM can still tune them). Sized for a
 * small (2-core) machine: 100 connections leave room for several Prisma pools (10 each by default)
 * plus migrations and admin tools. fsync stays on: the embedded database is the production default.
 */
const CLUSTER_SETTINGS = [
  "max_connections=100",
  "shared_buffers=128MB",
  "fsync=on",
  "jit=off", // JIT compile time outweighs its gains for short OLTP queries
  "timezone=UTC",
  "log_timezone=UTC",
];

export async function isInitialised(clusterDir: string): Promise<boolean> {
  const [version, password] = await Promise.all([
    exists(path.join(clusterDir, "PG_VERSION")),
    exists(path.join(clusterDir, PASSWORD_FILE)),
  ]);
  if (version && password) return true;
  if (version) {
    throw new Error(`${clusterDir} holds a PostgreSQL cluster that Sieve did not create (no ${PASSWORD_FILE}).`);
  }
  const entries = await fs.readdir(clusterDir).catch(() => []);
  if (entries.length > 0) throw new Error(`${clusterDir} exists but is not a PostgreSQL data directory.`);
  return false;
}

/**
 * initdb into a temporary sibling directory, then rename it into place: a crash mid-initdb never
 * leaves a half-made cluster, and of two concurrent first starts one rename wins.
 */
export async function initCluster(clusterDir: string, bin: Binaries, account: Account | undefined): Promise<void> {
  const parent = path.dirname(clusterDir);
  await removeStaleInitDirs(parent);
  const tmp = `${clusterDir}.init-${process.pid}-${randomBytes(4).toString("hex")}`;
  const pwFile = `${tmp}.pw`;
  const password = randomBytes(24).toString("hex");
  try {
    await fs.mkdir(tmp, { mode: 0o700 });
    await fs.writeFile(pwFile, `${password}\n`, { mode: 0o600 });
    if (account) {
      await fs.chown(tmp, account.uid, account.gid);
      await fs.chown(pwFile, account.uid, account.gid);
    }
    const args = [
      `--pgdata=${tmp}`,
      `--username=${SUPERUSER}`,
      "--auth=scram-sha-256",
      `--pwfile=${pwFile}`,
      "--encoding=UTF8",
      // Built-in C.UTF-8: Unicode-aware, identical on every machine, no OS locales needed.
      "--locale-provider=builtin",
      "--builtin-locale=C.UTF-8",
      "--locale=C",
      "--no-instructions",
      ...CLUSTER_SETTINGS.flatMap((s) => ["-c", s]),
    ];
    const result = await runToExit(bin.initdb, args, account);
    if (result.code !== 0) {
      throw new Error(`initdb failed (${result.how}).${permissionHint(result.output, clusterDir, account)}\n` +
        `--- initdb output ---\n${result.output}`);
    }
    const pwTarget = path.join(tmp, PASSWORD_FILE);
    await fs.writeFile(pwTarget, `${password}\n`, { mode: 0o600 });
    if (account) await fs.chown(pwTarget, account.uid, account.gid);
    try {
      await fs.rename(tmp, clusterDir);
    } catch (err) {
      if (!(await exists(path.join(clusterDir, PASSWORD_FILE)))) throw err; // not a lost race
    }
  } finally {
    await fs.rm(pwFile, { force: true });
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

/** Leftovers of an initdb that crashed more than ten minutes ago. */
async function removeStaleInitDirs(parent: string): Promise<void> {
  const cutoff = Date.now() - 10 * 60_000;
  for (const name of await fs.readdir(parent).catch(() => [] as string[])) {
    if (!name.startsWith("postgres.init-")) continue;
    const full = path.join(parent, name);
    const stat = await fs.stat(full).catch(() => undefined);
    if (stat && stat.mtimeMs < cutoff) await fs.rm(full, { recursive: true, force: true });
  }
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}
