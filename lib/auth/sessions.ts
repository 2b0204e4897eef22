import { randomBytes } from "node:crypto";
import { PrismaAdapter } from "@auth/prisma-adapter";
import { decoyHash, hashPassword, needsRehash, verifyPassword } from "@/lib/auth/passwords";
import { config } from "@/lib/core/config";
import { ApiError } from "@/lib/core/errors";
import { refundToken, takeToken } from "@/lib/core/rate-limit";
import { db } from "@/lib/db/client";

/**
 * Portal sessions: rows in `sessions` (the table Auth.js's Prisma adapter reads and writes; see
 * lib/auth/next-auth.ts), named by an opaque random token in an HttpOnly, SameSite=Lax cookie.
 * Auth.js refuses credentials sign-in with database sessions (UnsupportedStrategy), so password
 * sign-in is here and creates the same row the adapter would; reading, extending and ending a
 * session is Auth.js's. The CDN, which answers below Next.js, reads the cookie with sessionUser().
 */
export const SESSION_COOKIE = "sieve.session-token";

type Adapter = ReturnType<typeof PrismaAdapter>;
let adapter: Adapter | undefined;

/** Auth.js's Prisma adapter over our client: the one writer of the sessions table (Auth.js uses it too). */
export function sessionAdapter(): Adapter {
  adapter ??= PrismaAdapter(db() as unknown as Parameters<typeof PrismaAdapter>[0]);
  return adapter;
}

export interface SessionUser {
  userId: string;
  email: string;
  name: string | null;
}

export function sessionCookieOptions(expires: Date) {
  return { httpOnly: true, sameSite: "lax" as const, path: "/", secure: config().portal.secureCookies, expires };
}

/** The session cookie's value in a Cookie header, if any. */
export function sessionTokenFrom(cookieHeader: string | null | undefined): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === SESSION_COOKIE) {
      const value = part.slice(at + 1).trim();
      return /^[A-Za-z0-9_-]{20,200}$/.test(value) ? value : null;
    }
  }
  return null;
}

/** The signed-in user behind a session token; null when unknown or expired. */
export async function sessionUser(token: string | null): Promise<SessionUser | null> {
  if (!token) return null;
  const session = await db().session.findUnique({
    where: { sessionToken: token },
    select: { expires: true, user: { select: { id: true, email: true, name: true } } },
  });
  if (!session || session.expires.getTime() <= Date.now()) return null;
  return { userId: session.user.id, email: session.user.email, name: session.user.name };
}

export async function createSession(userId: string): Promise<{ token: string; expires: Date }> {
  const token = randomBytes(32).toString("base64url");
  const expires = new Date(Date.now() + config().portal.sessionMaxAgeSeconds * 1000);
  await sessionAdapter().createSession!({ sessionToken: token, userId, expires });
  return { token, expires };
}

export async function endSession(token: string | null): Promise<void> {
  // The adapter's delete throws for a token that is gone already: ended is ended.
  if (!token) return;
  try {
    await sessionAdapter().deleteSession!(token);
  } catch {
    // already gone
  }
}

/**
 * Checks an email and password and returns the user. Failed attempts are limited per email and
 * per client address (429 `rate-limit/exceeded`), and an unknown email costs a hash verification
 * too, so timing does not tell which emails have accounts. A hash in an older format is replaced.
 */
export async function checkPassword(input: { email: string; password: string; clientAddress: string }): Promise<SessionUser> {
  const email = input.email.trim().toLowerCase();
  const perMinute = config().portal.loginAttemptsPerMinute;
  const limit = (n: number) => ({ perSecond: n / 60, burst: n });
  // Spend a token before checking, so parallel guesses cannot outrun the limit; a success gives it back.
  const buckets = [
    { key: `login:email:${email}`, limit: limit(perMinute) },
    { key: `login:address:${input.clientAddress}`, limit: limit(perMinute * 4) },
  ];
  takeToken(buckets[0]!.key, buckets[0]!.limit);
  try {
    takeToken(buckets[1]!.key, buckets[1]!.limit);
  } catch (error) {
    refundToken(buckets[0]!.key, buckets[0]!.limit);
    throw error;
  }
  const user = await db().user.findUnique({ where: { email }, select: { id: true, email: true, name: true, passwordHash: true } });
  const stored = user?.passwordHash ?? (await decoyHash());
  const valid = (await verifyPassword(input.password, stored)) && user !== null && user.passwordHash !== null;
  if (!valid || !user) throw new ApiError("auth/invalid-credentials");
  for (const bucket of buckets) refundToken(bucket.key, bucket.limit);
  if (needsRehash(stored)) {
    await db().user.update({ where: { id: user.id }, data: { passwordHash: await hashPassword(input.password) } });
  }
  return { userId: user.id, email: user.email, name: user.name };
}

/** Housekeeping: expired sessions are refused already; this removes their rows. */
export async function pruneExpiredSessions(): Promise<number> {
  const { count } = await db().session.deleteMany({ where: { expires: { lt: new Date() } } });
  return count;
}
