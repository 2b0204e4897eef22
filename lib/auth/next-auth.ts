import { randomBytes } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import NextAuth, { type NextAuthConfig } from "next-auth";
import { SESSION_COOKIE, sessionAdapter, sessionCookieOptions } from "@/lib/auth/sessions";
import { config } from "@/lib/core/config";

/**
 * Auth.js (next-auth v5) for the portal: database sessions through the Prisma adapter (table
 * `sessions`), read by `auth()` in pages, actions and portal routes, extended while in use
 * (SESSION_UPDATE_AGE_SECONDS) and ended by `signOut()`. Password sign-in creates the session row
 * itself (lib/auth/sessions.ts), because Auth.js allows credentials only with JWT sessions.
 */
let secret: Promise<string> | undefined;

/** AUTH_SECRET, else a random one kept in DATA_DIR (one server; several need AUTH_SECRET set). */
function authSecret(): Promise<string> {
  secret ??= (async () => {
    const configured = config().portal.authSecret;
    if (configured) return configured;
    const file = path.join(config().dataDir, "auth-secret");
    const existing = await readFile(file, "utf8").catch(() => "");
    if (existing.trim().length >= 32) return existing.trim();
    const created = randomBytes(32).toString("base64url");
    await mkdir(config().dataDir, { recursive: true });
    await writeFile(file, created, { mode: 0o600 });
    return created;
  })();
  return secret;
}

async function authConfig(): Promise<NextAuthConfig> {
  const portal = config().portal;
  return {
    adapter: sessionAdapter(),
    session: { strategy: "database", maxAge: portal.sessionMaxAgeSeconds, updateAge: portal.sessionUpdateAgeSeconds },
    providers: [],
    secret: await authSecret(),
    // The server is Sieve's own; its PUBLIC_URL and Host header are trusted.
    trustHost: true,
    cookies: { sessionToken: { name: SESSION_COOKIE, options: sessionCookieOptions(new Date(0)) } },
    pages: { signIn: "/login", signOut: "/login" },
    callbacks: {
      // Only what pages need; never the password hash the adapter's user row carries.
      session: ({ session, user }) => ({ ...session, user: { id: user.id, email: user.email, name: user.name ?? null } }),
    },
  };
}

export const { handlers, auth, signOut } = NextAuth(authConfig);
