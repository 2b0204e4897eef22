"use client";

import { inputClass, labelClass } from "@/components/portal/styles";

/** One labelled drop-down; `any` adds a first choice with the value "" (no filter). */
export function Choice({ id, label, value, choices, any, onPick }: { id: string; label: string; value: string | number; choices: Record<string, string>; any?: string; onPick: (value: string) => void }) {
  return (
    <div className="space-y-1">
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      <select id={id} className={inputClass} value={value} onChange={(event) => onPick(event.target.value)}>
        {[...(any === undefined ? [] : [["", any]]), ...Object.entries(choices)].map(([choice, text]) => (
          <option key={choice} value={choice}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}
