import type { SessionUser } from "@/lib/auth/sessions";
import { ApiError } from "@/lib/core/errors";

export type { SessionUser };

/**
 * Session authentication for the portal's JSON routes (handle() with `auth: "session"`).
 * Auth.js is loaded on first use, so API-key routes never pay for it.
 */
export async function signedInUser(): Promise<SessionUser | null> {
  const { auth } = await import("@/lib/auth/next-auth");
  const session = await auth();
  const user = session?.user as { id?: string; email?: string | null; name?: string | null } | undefined;
  return user?.id ? { userId: user.id, email: user.email ?? "", name: user.name ?? null } : null;
}

/** The signed-in user, or 401 `auth/not-signed-in`. */
export async function portalSessionUser(): Promise<SessionUser> {
  const user = await signedInUser();
  if (!user) throw new ApiError("auth/not-signed-in");
  return user;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * CSRF defence for cookie-authenticated writes (OWASP "verifying origin with standard headers"):
 * a write must come from this origin, as the browser's Origin header (or Sec-Fetch-Site) says,
 * and carry a JSON body, which a cross-site form cannot send without a refused preflight.
 * The session cookie is SameSite=Lax as well.
 */
export function assertSameOrigin(request: Request): void {
  if (SAFE_METHODS.has(request.method)) return;
  const fetchSite = request.headers.get("sec-fetch-site");
  const origin = request.headers.get("origin");
  const host = request.headers.get("host");
  const sameOrigin = fetchSite ? fetchSite === "same-origin" : origin !== null && host !== null && hostOf(origin) === host.toLowerCase();
  if (!sameOrigin) throw new ApiError("auth/cross-site-request");
  const contentType = request.headers.get("content-type") ?? "";
  if (request.headers.get("content-length") !== "0" && !/^application\/json\b/i.test(contentType)) {
    throw new ApiError("auth/cross-site-request", "A portal write must send Content-Type: application/json.");
  }
}

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return null;
  }
}
