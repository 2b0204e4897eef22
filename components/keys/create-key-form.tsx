"use client";

import { useId, useState } from "react";
import { PERMISSIONS, type Permission } from "@/lib/auth/permissions";
import type { CreatedApiKey } from "@/lib/portal/types";
import { errorMessage } from "@/components/portal/portal-fetch";
import { inputClass, labelClass } from "@/components/portal/styles";
import { FormFooter } from "./form-footer";
import { useCreateApiKey } from "./hooks";
import { PermissionChecklist } from "./permission-checklist";

const RATE_LIMIT_MAX = 10_000;

/** Name, permissions and an optional rate limit; checks in the browser what the route checks again. */
export function CreateKeyForm({ projectId, onCreated, onCancel }: { projectId: string; onCreated: (created: CreatedApiKey) => void; onCancel: () => void }) {
  const nameId = useId();
  const rateId = useId();
  const rateHelpId = useId();
  const [name, setName] = useState("");
  const [permissions, setPermissions] = useState<Permission[]>([...PERMISSIONS]);
  const [rateLimit, setRateLimit] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const create = useCreateApiKey(projectId);

  const submit = () => {
    const rate = rateLimit.trim() === "" ? null : Number(rateLimit);
    if (name.trim() === "") return setProblem("Give the key a name, e.g. the program that will use it.");
    if (permissions.length === 0) return setProblem("Choose at least one permission.");
    if (rate !== null && (!Number.isInteger(rate) || rate < 1 || rate > RATE_LIMIT_MAX)) {
      return setProblem(`The rate limit must be a whole number from 1 to ${RATE_LIMIT_MAX}, or empty for the server default.`);
    }
    setProblem(null);
    create.mutate({ name: name.trim(), permissions, rateLimitPerSecond: rate }, { onSuccess: onCreated });
  };

  const shown = problem ?? (create.isError ? `The key was not created: ${errorMessage(create.error)}` : null);
  return (
    <form
      aria-label="New API key"
      data-testid="create-key-form"
      className="space-y-4 rounded-md border border-slate-300 bg-white p-4"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <h2 className="text-lg font-semibold text-slate-900">New API key</h2>
      <div className="space-y-1">
        <label htmlFor={nameId} className={labelClass}>
          Name
        </label>
        <input id={nameId} className={inputClass} value={name} maxLength={100} onChange={(e) => setName(e.target.value)} autoFocus placeholder="e.g. Upload service" />
      </div>
      <PermissionChecklist legend="Permissions" value={permissions} onChange={setPermissions} />
      <div className="max-w-xs space-y-1">
        <label htmlFor={rateId} className={labelClass}>
          Rate limit (requests per second, optional)
        </label>
        <input id={rateId} className={inputClass} inputMode="numeric" value={rateLimit} onChange={(e) => setRateLimit(e.target.value)} aria-describedby={rateHelpId} />
        <p id={rateHelpId} className="text-xs text-slate-700">
          Empty uses the server default.
        </p>
      </div>
      <FormFooter problem={shown} submitLabel="Create key" pendingLabel="Creating…" pending={create.isPending} onCancel={onCancel} />
    </form>
  );
}
