import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

/**
 * Password hashes for user accounts: scrypt (node:crypto; no native dependency), stored in a
 * self-describing format `scrypt$N$r$p$salt$hash` (salt and hash base64url), so the parameters can
 * be raised later and old hashes still verify. N = 2^17, r = 8, p = 1: OWASP's minimum for scrypt
 * (128 MiB of memory and a few hundred milliseconds per guess).
 */
const PARAMS = { N: 2 ** 17, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

function derive(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  // scrypt needs 128 * N * r bytes; allow twice that.
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize("NFC"), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, PARAMS);
  return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** False for a wrong password and for a hash this code cannot read. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored);
  if (!match) return false;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // N must be a power of two above 1; bound the work a stored hash can ask for.
  if (N < 2 || (N & (N - 1)) !== 0 || N > 2 ** 20 || r < 1 || r > 32 || p < 1 || p > 16) return false;
  const expected = Buffer.from(match[5] as string, "base64url");
  if (expected.length !== KEY_LENGTH) return false;
  const key = await derive(password, Buffer.from(match[4] as string, "base64url"), { N, r, p });
  return timingSafeEqual(key, expected);
}

/** The CLI's minimum for a new password. */
export const MIN_PASSWORD_LENGTH = 8;
