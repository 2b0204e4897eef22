"use server";

import { acceptInvitationForm, signUpWithInvitationForm } from "@/lib/portal/invitation-actions";
import type { SignInState } from "@/lib/portal/sign-in-state";

/** The invitation page's actions (Next checks that server actions come from this origin). */
export async function acceptInvitationAction(token: string, _state: SignInState): Promise<SignInState> {
  return acceptInvitationForm(token);
}

export async function signUpWithInvitationAction(token: string, _state: SignInState, form: FormData): Promise<SignInState> {
  return signUpWithInvitationForm(token, form);
}
