"use client";

import { EVENT_TYPE_NAMES } from "@/lib/events/catalogue";

/** Which events a connector receives; none ticked means every type (the API's rule). */
export function EventTypePicker({ value, onChange, disabled }: { value: string[]; onChange: (next: string[]) => void; disabled?: boolean }) {
  const toggle = (name: string, on: boolean) => onChange(on ? [...value, name] : value.filter((v) => v !== name));
  return (
    <fieldset className="space-y-2" disabled={disabled}>
      <legend className="text-sm font-medium text-slate-800">Event types</legend>
      <p className="text-xs text-slate-700">Leave all unticked to receive every type.</p>
      <div className="grid grid-cols-1 gap-1 sm:grid-cols-3">
        {EVENT_TYPE_NAMES.map((name) => (
          <label key={name} className="flex min-h-8 items-center gap-2 text-sm text-slate-900">
            <input type="checkbox" className="size-4" checked={value.includes(name)} onChange={(e) => toggle(name, e.target.checked)} />
            <code className="text-xs">{name}</code>
          </label>
        ))}
      </div>
    </fieldset>
  );
}
