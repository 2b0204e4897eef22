"use server";

import { signOutOfPortal } from "@/lib/portal/sign-in";

export async function signOutAction(): Promise<void> {
  await signOutOfPortal();
}
