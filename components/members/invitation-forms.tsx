"use client";

import { startTransition, useActionState, useId } from "react";
import type { SignInState } from "@/lib/portal/sign-in-state";
import { buttonClass, inputClass, labelClass } from "@/components/portal/styles";

const INITIAL: SignInState = { error: null };

function Problem({ text }: { text: string | null }) {
  return text ? (
    <p role="alert" className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900">
      {text}
    </p>
  ) : null;
}

/** Accept as the signed-in user; the action redirects into the project on success. */
export function AcceptInvitationForm({ action, projectName }: { action: (state: SignInState) => Promise<SignInState>; projectName: string }) {
  const [state, formAction, pending] = useActionState(action, INITIAL);
  return (
    <form action={formAction} className="space-y-4">
      <Problem text={state.error} />
      <button type="submit" className={buttonClass("primary", "w-full")} disabled={pending}>
        {pending ? "Joining…" : `Join ${projectName}`}
      </button>
    </form>
  );
}

/** A new account that joins at once (then signed in). Keeps what was typed when refused. */
export function SignUpForm({ action, minPasswordLength }: { action: (state: SignInState, form: FormData) => Promise<SignInState>; minPasswordLength: number }) {
  const [state, formAction, pending] = useActionState(action, INITIAL);
  const ids = { name: useId(), email: useId(), password: useId(), help: useId() };
  return (
    <form
      action={formAction}
      className="space-y-4"
      onSubmit={(event) => {
        // As on the sign-in form: a transition keeps the typed values when the action refuses.
        event.preventDefault();
        const data = new FormData(event.currentTarget);
        startTransition(() => formAction(data));
      }}
    >
      <Problem text={state.error} />
      <div className="space-y-1">
        <label htmlFor={ids.name} className={labelClass}>
          Your name
        </label>
        <input id={ids.name} name="name" autoComplete="name" required maxLength={200} className={inputClass} />
      </div>
      <div className="space-y-1">
        <label htmlFor={ids.email} className={labelClass}>
          Email
        </label>
        <input id={ids.email} name="email" type="email" autoComplete="email" required className={inputClass} />
      </div>
      <div className="space-y-1">
        <label htmlFor={ids.password} className={labelClass}>
          Password
        </label>
        <input id={ids.password} name="password" type="password" autoComplete="new-password" required aria-describedby={ids.help} className={inputClass} />
        <p id={ids.help} className="text-xs text-slate-700">
          At least {minPasswordLength} characters.
        </p>
      </div>
      <button type="submit" className={buttonClass("primary", "w-full")} disabled={pending}>
        {pending ? "Creating your account…" : "Create account and join"}
      </button>
    </form>
  );
}
