"use client";

import { useId } from "react";
import { PERMISSIONS, type Permission } from "@/lib/auth/permissions";
import { buttonClass } from "@/components/portal/styles";

/** What each API permission allows, in words (the same names serve keys and custom roles). */
export const PERMISSION_DESCRIPTIONS: Record<Permission, string> = {
  "assets:read": "Read assets, their reports and folders",
  "assets:write": "Upload, move, update and delete assets and folders",
  "assets:download": "Download asset content and previews",
  "assets:review": "Approve or reject assets",
  "lenses:write": "Create and change lenses",
  "events:read": "Read the events feed",
  "events:write": "Mark events read",
  "connectors:read": "See connectors and their deliveries",
  "connectors:write": "Create, change and delete connectors",
};

export const READ_ONLY_PERMISSIONS: readonly Permission[] = ["assets:read", "assets:download", "events:read", "connectors:read"];

/**
 * A fieldset of permission checkboxes with "All" and "Read-only" presets. The legend names it for
 * screen readers; `error` (e.g. none chosen) is tied to the group with aria-describedby.
 */
export function PermissionChecklist({
  legend,
  value,
  onChange,
  error,
}: {
  legend: string;
  value: readonly Permission[];
  onChange: (next: Permission[]) => void;
  error?: string | null;
}) {
  const errorId = useId();
  const idPrefix = useId();
  const toggle = (permission: Permission, on: boolean) =>
    onChange(PERMISSIONS.filter((p) => (p === permission ? on : value.includes(p))));
  return (
    <fieldset aria-describedby={error ? errorId : undefined} className="rounded-md border border-slate-300 p-3">
      <legend className="px-1 text-sm font-medium text-slate-800">{legend}</legend>
      <div className="mb-2 flex flex-wrap gap-2">
        <button type="button" className={buttonClass("secondary")} onClick={() => onChange([...PERMISSIONS])}>
          All permissions
        </button>
        <button type="button" className={buttonClass("secondary")} onClick={() => onChange([...READ_ONLY_PERMISSIONS])}>
          Read-only
        </button>
        <button type="button" className={buttonClass("ghost")} onClick={() => onChange([])}>
          Clear
        </button>
      </div>
      <ul className="grid gap-1 sm:grid-cols-2">
        {PERMISSIONS.map((permission) => {
          const id = `${idPrefix}-${permission}`;
          return (
            <li key={permission} className="flex items-start gap-2">
              <input
                id={id}
                type="checkbox"
                className="mt-1 size-4 accent-blue-700"
                checked={value.includes(permission)}
                onChange={(event) => toggle(permission, event.target.checked)}
              />
              <label htmlFor={id} className="text-sm text-slate-900">
                <code className="font-mono text-xs">{permission}</code>
                <span className="block text-slate-700">{PERMISSION_DESCRIPTIONS[permission]}</span>
              </label>
            </li>
          );
        })}
      </ul>
      {error ? (
        <p id={errorId} className="mt-2 text-sm text-red-800">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
