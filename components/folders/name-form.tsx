"use client";

import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { inputClass, labelClass } from "@/components/portal/styles";
import { FormButtons } from "./form-buttons";

/** The spec's folder name rule (lib/folders/schemas.ts), checked before sending so the reason shows at once. */
export function nameProblem(name: string): string | null {
  if (name.trim() === "") return "Enter a name; it cannot be blank.";
  if (name.length > 100) return `Use at most 100 characters (this one has ${name.length}).`;
  if (/[/\\]/.test(name)) return "A folder name cannot contain a slash (/ or \\).";
  return null;
}

/** A folder name form (create or rename): the name is focused when it opens; errors show under it. */
export function NameForm({
  label,
  submitLabel,
  initial = "",
  pending,
  error,
  onSubmit,
  onCancel,
}: {
  label: string;
  submitLabel: string;
  initial?: string;
  pending: boolean;
  error: string | null;
  onSubmit: (name: string) => void;
  onCancel: () => void;
}) {
  const inputId = useId();
  const errorId = useId();
  const input = useRef<HTMLInputElement>(null);
  const [name, setName] = useState(initial);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => input.current?.select(), []);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const found = nameProblem(name);
    setProblem(found);
    if (found) input.current?.focus();
    else onSubmit(name);
  };
  const shown = problem ?? error;

  return (
    <form onSubmit={submit} className="space-y-2" noValidate>
      <label htmlFor={inputId} className={labelClass}>
        {label}
      </label>
      <input
        ref={input}
        id={inputId}
        className={inputClass}
        value={name}
        maxLength={200}
        aria-invalid={shown ? true : undefined}
        aria-describedby={shown ? errorId : undefined}
        onChange={(event) => setName(event.target.value)}
      />
      {shown ? (
        <p id={errorId} role="alert" className="text-sm text-red-800">
          {shown}
        </p>
      ) : null}
      <FormButtons label={submitLabel} pendingLabel="Saving…" pending={pending} onCancel={onCancel} />
    </form>
  );
}
