"use client";

import { useId } from "react";
import type { RoleRequest } from "@/lib/portal/types";
import { PermissionChecklist } from "@/components/keys/permission-checklist";
import { ROLE_DESCRIPTIONS, ROLE_LABELS, ROLE_NAMES } from "./roles";

/** A role as radio buttons; "Custom" opens the permission checklist (an explicit list). */
export function RolePicker({ legend, value, onChange, error }: { legend: string; value: RoleRequest; onChange: (next: RoleRequest) => void; error?: string | null }) {
  const name = useId();
  return (
    <div className="space-y-3">
      <fieldset className="space-y-1">
        <legend className="text-sm font-medium text-slate-800">{legend}</legend>
        {ROLE_NAMES.map((role) => {
          const id = `${name}-${role}`;
          return (
            <div key={role} className="flex items-start gap-2">
              <input
                id={id}
                type="radio"
                name={name}
                className="mt-1 size-4 accent-blue-700"
                checked={value.role === role}
                onChange={() => onChange(role === "custom" ? { role, permissions: value.permissions ?? [] } : { role })}
              />
              <label htmlFor={id} className="text-sm text-slate-900">
                <span className="font-medium">{ROLE_LABELS[role]}</span>
                <span className="block text-slate-700">{ROLE_DESCRIPTIONS[role]}</span>
              </label>
            </div>
          );
        })}
      </fieldset>
      {value.role === "custom" ? (
        <PermissionChecklist legend="Permissions of the custom role" value={value.permissions ?? []} onChange={(permissions) => onChange({ role: "custom", permissions })} error={error} />
      ) : null}
    </div>
  );
}

/** The browser's check of what the route checks again. */
export function roleProblem(request: RoleRequest): string | null {
  return request.role === "custom" && (request.permissions?.length ?? 0) === 0 ? "Choose at least one permission for a custom role." : null;
}
