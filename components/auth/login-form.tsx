"use client";

import { startTransition, useActionState, useId } from "react";
import type { SignInState } from "@/lib/portal/sign-in-state";
import { buttonClass, inputClass, labelClass } from "@/components/portal/styles";

type SignInAction = (state: SignInState, form: FormData) => Promise<SignInState>;

const INITIAL: SignInState = { error: null };

/** Email + password sign-in. The action redirects on success, so only a failure comes back here. */
export function LoginForm({ action, callbackUrl }: { action: SignInAction; callbackUrl: string }) {
  const [state, formAction, pending] = useActionState(action, INITIAL);
  const emailId = useId();
  const passwordId = useId();
  const errorId = useId();

  return (
    <form
      action={formAction}
      className="space-y-4"
      // With JavaScript, submit through a transition instead of the form action: React resets a
      // form after its action, and a failed sign-in must keep the typed email. Without
      // JavaScript the form still posts to the action (progressive enhancement).
      onSubmit={(event) => {
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        startTransition(() => formAction(data));
      }}
    >
      <input type="hidden" name="callbackUrl" value={callbackUrl} />
      {state.error ? (
        <p id={errorId} role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900">
          {state.error}
        </p>
      ) : null}
      <div className="space-y-1">
        <label htmlFor={emailId} className={labelClass}>
          Email
        </label>
        <input id={emailId} name="email" type="email" autoComplete="username" required className={inputClass} />
      </div>
      <div className="space-y-1">
        <label htmlFor={passwordId} className={labelClass}>
          Password
        </label>
        <input id={passwordId} name="password" type="password" autoComplete="current-password" required className={inputClass} />
      </div>
      <button type="submit" className={buttonClass("primary", "w-full")} disabled={pending}>
        {pending ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
