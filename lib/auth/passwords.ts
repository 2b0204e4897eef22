import { scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { hash, verify } from "@node-rs/argon2";

/**
 * Password hashes for user accounts: argon2id (PHC string `$argon2id$v=19$m=…,t=…,p=…$salt$hash`)
 * with OWASP's first recommended setting, m = 19 MiB, t = 2, p = 1. The PHC string carries its
 * parameters, so they can be raised later and old hashes still verify.
 *
 * Hashes written before argon2id (`scrypt$N$r$p$salt$hash`, session 5's CLI) still verify, so no
 * account is locked out by the change.
 */
const ARGON2ID = 2; // @node-rs/argon2's Algorithm.Argon2id (a const enum, not importable at runtime)
const ARGON2_OPTIONS = { algorithm: ARGON2ID, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export async function hashPassword(password: string): Promise<string> {
  return hash(password.normalize("NFC"), ARGON2_OPTIONS);
}

/** False for a wrong password and for a hash this code cannot read. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (stored.startsWith("$argon2id$")) {
    try {
      return await verify(stored, password.normalize("NFC"));
    } catch {
      return false; // malformed PHC string
    }
  }
  if (stored.startsWith("scrypt$")) return verifyLegacyScrypt(password, stored);
  return false;
}

/** Whether a stored hash should be replaced by a fresh argon2id one at the next sign-in. */
export function needsRehash(stored: string): boolean {
  return !stored.startsWith("$argon2id$");
}

/** A hash of a random password, to spend the same time on unknown emails as on known ones. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(`decoy-${Math.random()}`);
  return decoy;
}

async function verifyLegacyScrypt(password: string, stored: string): Promise<boolean> {
  const match = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored);
  if (!match) return false;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // N must be a power of two above 1; bound the work a stored hash can ask for.
  if (N < 2 || (N & (N - 1)) !== 0 || N > 2 ** 20 || r < 1 || r > 32 || p < 1 || p > 16) return false;
  const expected = Buffer.from(match[5] as string, "base64url");
  if (expected.length !== 32) return false;
  const options: ScryptOptions = { N, r, p, maxmem: 256 * N * r };
  const key = await new Promise<Buffer>((resolve, reject) => {
    scrypt(password.normalize("NFC"), Buffer.from(match[4] as string, "base64url"), 32, options, (error, derived) => (error ? reject(error) : resolve(derived)));
  });
  return timingSafeEqual(key, expected);
}

/** The CLI's minimum for a new password. */
export const MIN_PASSWORD_LENGTH = 8;
