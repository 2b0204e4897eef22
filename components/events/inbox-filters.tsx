"use client";

import { useId } from "react";
import { EVENT_TYPE_NAMES } from "@/lib/events/catalogue";
import { buttonClass, inputClass, labelClass } from "@/components/portal/styles";
import { EMPTY_FILTERS, isFiltered, TYPE_LABELS, type InboxFilters } from "./filters-model";

type Options<K extends keyof InboxFilters> = readonly (readonly [InboxFilters[K], string])[];

const TYPE_OPTIONS: Options<"type"> = [["", "All types"], ...EVENT_TYPE_NAMES.map((type) => [type, TYPE_LABELS[type]] as const)];
const SEVERITY_OPTIONS: Options<"severity"> = [["", "Any severity"], ["high", "High"], ["low", "Low"]];
const STATE_OPTIONS: Options<"state"> = [["", "Read and unread"], ["unread", "Unread only"], ["read", "Read only"]];

/** Type, severity and read state; each change applies at once (the list refetches). */
export function InboxFiltersForm({ filters, onChange }: { filters: InboxFilters; onChange: (filters: InboxFilters) => void }) {
  const id = useId();
  const select = <K extends keyof InboxFilters>(key: K, label: string, options: Options<K>, width: string) => (
    <div className={`${width} flex-1 sm:flex-none`}>
      <label htmlFor={`${id}-${key}`} className={labelClass}>
        {label}
      </label>
      <select
        id={`${id}-${key}`}
        className={inputClass}
        value={filters[key]}
        onChange={(event) => onChange({ ...filters, [key]: event.target.value as InboxFilters[K] })}
      >
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <form
      role="search"
      aria-label="Filter events"
      className="flex flex-wrap items-end gap-3 rounded-lg border border-slate-300 bg-white px-4 py-3"
      onSubmit={(event) => event.preventDefault()}
    >
      {select("type", "Type", TYPE_OPTIONS, "min-w-44")}
      {select("severity", "Severity", SEVERITY_OPTIONS, "min-w-32")}
      {select("state", "Read state", STATE_OPTIONS, "min-w-32")}
      <button type="button" className={buttonClass("secondary")} disabled={!isFiltered(filters)} onClick={() => onChange(EMPTY_FILTERS)}>
        Reset filters
      </button>
    </form>
  );
}
