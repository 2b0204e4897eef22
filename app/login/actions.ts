"use server";

import { signInWithPasswordForm } from "@/lib/portal/sign-in";
import type { SignInState } from "@/lib/portal/sign-in-state";

/** The sign-in form's action (Next checks that server actions come from this origin). */
export async function signInWithPassword(_state: SignInState, form: FormData): Promise<SignInState> {
  return signInWithPasswordForm(form);
}
