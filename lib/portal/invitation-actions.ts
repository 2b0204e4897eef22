import { cookies } from "next/headers";
import { redirect } from "next/navigation";
import { hashPassword, MIN_PASSWORD_LENGTH } from "@/lib/auth/passwords";
import { createSession, SESSION_COOKIE, sessionCookieOptions } from "@/lib/auth/sessions";
import { isApiError } from "@/lib/core/errors";
import { db } from "@/lib/db/client";
import { signedInUser } from "@/lib/http/session-auth";
import { acceptInvitation, acceptInvitationIn, invitationByToken, type InvitationView } from "@/lib/projects/invitations";
import type { SignInState } from "@/lib/portal/sign-in-state";

/**
 * The invitation page (/invite/<token>): who holds the link joins with its role, signed in
 * already or as a new account made here (then signed in). Failures come back as words for the form.
 */
export async function invitationForPage(token: string): Promise<InvitationView | null> {
  return invitationByToken(token);
}

export { MIN_PASSWORD_LENGTH };

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MAX_PASSWORD_LENGTH = 1024;

function inWords(error: unknown): string | null {
  if (!isApiError(error)) return null;
  if (error.code === "invitation/unusable") return "This invitation can no longer be used: it has expired, was already used, or was revoked. Ask for a new link.";
  if (error.code === "member/already-member") return "You are already a member of this project.";
  return error.message;
}

/** A new user from the sign-up form, checked as the admin CLI checks users (lib/admin/users.ts). */
export function newAccountProblem(input: { name: string; email: string; password: string }): string | null {
  if (input.name === "" || input.name.length > 200) return "Enter your name (up to 200 characters).";
  if (!EMAIL.test(input.email) || input.email.length > 254) return "Enter a valid email address.";
  if (input.password.length < MIN_PASSWORD_LENGTH) return `Choose a password of at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (input.password.length > MAX_PASSWORD_LENGTH) return `A password can have at most ${MAX_PASSWORD_LENGTH} characters.`;
  return null;
}

/**
 * Creates the account and uses the invitation in one transaction (no account is left behind when
 * the link turns out unusable); answers the new user's id or a problem in words.
 */
export async function signUpWithInvitation(token: string, input: { name: string; email: string; password: string }): Promise<{ userId: string; projectId: string } | { error: string }> {
  const account = { name: input.name.trim(), email: input.email.trim().toLowerCase(), password: input.password };
  const problem = newAccountProblem(account);
  if (problem) return { error: problem };
  const passwordHash = await hashPassword(account.password);
  try {
    return await db().$transaction(async (tx) => {
      if (await tx.user.findUnique({ where: { email: account.email }, select: { id: true } })) {
        return { error: "An account with this email exists already: sign in to accept the invitation." };
      }
      const user = await tx.user.create({ data: { email: account.email, name: account.name, passwordHash } });
      const { projectId } = await acceptInvitationIn(tx, token, user.id);
      return { userId: user.id, projectId };
    });
  } catch (error) {
    const words = inWords(error);
    if (words) return { error: words };
    throw error;
  }
}

async function startSession(userId: string): Promise<void> {
  const session = await createSession(userId);
  (await cookies()).set(SESSION_COOKIE, session.token, sessionCookieOptions(session.expires));
}

export async function signUpWithInvitationForm(token: string, form: FormData): Promise<SignInState> {
  const result = await signUpWithInvitation(token, {
    name: String(form.get("name") ?? ""),
    email: String(form.get("email") ?? ""),
    password: String(form.get("password") ?? ""),
  });
  if ("error" in result) return { error: result.error };
  await startSession(result.userId);
  redirect(`/projects/${result.projectId}/review`);
}

export async function acceptInvitationForm(token: string): Promise<SignInState> {
  const user = await signedInUser();
  if (!user) redirect(`/login?callbackUrl=${encodeURIComponent(`/invite/${token}`)}`);
  let projectId: string;
  try {
    projectId = (await acceptInvitation(token, user.userId)).projectId;
  } catch (error) {
    const words = inWords(error);
    if (words) return { error: words };
    throw error;
  }
  redirect(`/projects/${projectId}/review`);
}
