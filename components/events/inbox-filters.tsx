"use client";

import { useId } from "react";
import { EVENT_TYPE_NAMES } from "@/lib/events/catalogue";
import { buttonClass, inputClass, labelClass } from "@/components/portal/styles";
import { EMPTY_FILTERS, isFiltered, TYPE_LABELS, type InboxFilters } from "./filters-model";

/** Type, severity and read state; each change applies at once (the list refetches). */
export function InboxFiltersForm({ filters, onChange }: { filters: InboxFilters; onChange: (filters: InboxFilters) => void }) {
  const id = useId();
  return (
    <form
      role="search"
      aria-label="Filter events"
      className="flex flex-wrap items-end gap-3 rounded-lg border border-slate-300 bg-white px-4 py-3"
      onSubmit={(event) => event.preventDefault()}
    >
      <div className="min-w-44 flex-1 sm:flex-none">
        <label htmlFor={`${id}-type`} className={labelClass}>
          Type
        </label>
        <select
          id={`${id}-type`}
          className={inputClass}
          value={filters.type}
          onChange={(event) => onChange({ ...filters, type: event.target.value as InboxFilters["type"] })}
        >
          <option value="">All types</option>
          {EVENT_TYPE_NAMES.map((type) => (
            <option key={type} value={type}>
              {TYPE_LABELS[type]}
            </option>
          ))}
        </select>
      </div>
      <div className="min-w-32 flex-1 sm:flex-none">
        <label htmlFor={`${id}-severity`} className={labelClass}>
          Severity
        </label>
        <select
          id={`${id}-severity`}
          className={inputClass}
          value={filters.severity}
          onChange={(event) => onChange({ ...filters, severity: event.target.value as InboxFilters["severity"] })}
        >
          <option value="">Any severity</option>
          <option value="high">High</option>
          <option value="low">Low</option>
        </select>
      </div>
      <div className="min-w-32 flex-1 sm:flex-none">
        <label htmlFor={`${id}-state`} className={labelClass}>
          Read state
        </label>
        <select
          id={`${id}-state`}
          className={inputClass}
          value={filters.state}
          onChange={(event) => onChange({ ...filters, state: event.target.value as InboxFilters["state"] })}
        >
          <option value="">Read and unread</option>
          <option value="unread">Unread only</option>
          <option value="read">Read only</option>
        </select>
      </div>
      <button type="button" className={buttonClass("secondary")} disabled={!isFiltered(filters)} onClick={() => onChange(EMPTY_FILTERS)}>
        Reset filters
      </button>
    </form>
  );
}
