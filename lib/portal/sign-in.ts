import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { handlers, signOut } from "@/lib/auth/next-auth";
import { checkPassword, createSession, SESSION_COOKIE, sessionCookieOptions } from "@/lib/auth/sessions";
import { isApiError } from "@/lib/core/errors";
import { safeCallbackPath, type SignInState } from "@/lib/portal/sign-in-state";
import { CLIENT_ADDRESS_HEADER } from "@/lib/server/client-address";

/** Auth.js's own endpoints (session, CSRF token, sign-out), mounted at /api/auth. */
export const authRouteHandlers = handlers;

/**
 * Password sign-in for the /login form: checks the password (limited per email and address),
 * creates the session row and sets its cookie, then goes where the user was headed.
 */
export async function signInWithPasswordForm(form: FormData): Promise<SignInState> {
  const email = String(form.get("email") ?? "").trim();
  const password = String(form.get("password") ?? "");
  if (email === "" || password === "") return { error: "Enter your email and password." };
  if (email.length > 254 || password.length > 1024) return { error: "The email or password is incorrect." };
  let userId: string;
  try {
    const clientAddress = (await headers()).get(CLIENT_ADDRESS_HEADER) ?? "unknown";
    userId = (await checkPassword({ email, password, clientAddress })).userId;
  } catch (error) {
    if (isApiError(error) && error.code === "auth/invalid-credentials") return { error: "The email or password is incorrect." };
    if (isApiError(error) && error.code === "rate-limit/exceeded") {
      return { error: `Too many sign-in attempts. Try again in ${error.headers["Retry-After"] ?? "a few"} seconds.` };
    }
    throw error;
  }
  const session = await createSession(userId);
  (await cookies()).set(SESSION_COOKIE, session.token, sessionCookieOptions(session.expires));
  redirect(safeCallbackPath(form.get("callbackUrl")));
}

/** Ends the session (Auth.js deletes its row and the cookie) and returns to the sign-in page. */
export async function signOutOfPortal(): Promise<void> {
  await signOut({ redirectTo: "/login" });
}
