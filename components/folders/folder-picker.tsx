"use client";

import { inputClass, labelClass } from "@/components/portal/styles";
import { ROOT, ROOT_LABEL } from "./folder-model";

/** A destination chooser: the project root, then every folder as "Parent / Child", minus `exclude`. */
export function FolderPicker({
  id,
  label,
  value,
  options,
  exclude = new Set(),
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  options: { id: string; label: string }[];
  exclude?: ReadonlySet<string>;
  onChange: (value: string) => void;
}) {
  return (
    <div className="space-y-1">
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      <select id={id} className={inputClass} value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">Choose a folder…</option>
        <option value={ROOT}>{ROOT_LABEL}</option>
        {options
          .filter((option) => !exclude.has(option.id))
          .map((option) => (
            <option key={option.id} value={option.id}>
              {option.label}
            </option>
          ))}
      </select>
    </div>
  );
}
