"use client";

import { useId, type ReactNode } from "react";
import type { PortalFolder } from "@/lib/portal/types";
import { ASSET_TYPE_LABELS, CATEGORIES, CATEGORY_LABELS, LIKELIHOODS, LIKELIHOOD_LABELS, REASON_LABELS } from "@/components/assets/report-labels";
import { buttonClass, inputClass, labelClass } from "@/components/portal/styles";
import { activeFilterCount, EMPTY_FILTERS, type QueueFilters } from "./queue-filters-model";
import { useFolders } from "./hooks";

/** Folders as "Parent / Child" paths, so two folders with the same name can be told apart. */
function folderOptions(folders: PortalFolder[]): { id: string; label: string }[] {
  const byId = new Map(folders.map((folder) => [folder.id, folder]));
  const path = (folder: PortalFolder, depth = 0): string => {
    const parent = folder.parentId ? byId.get(folder.parentId) : undefined;
    return parent && depth < 20 ? `${path(parent, depth + 1)} / ${folder.name}` : folder.name;
  };
  return folders.map((folder) => ({ id: folder.id, label: path(folder) })).sort((a, b) => a.label.localeCompare(b.label));
}

function Field({ label, children, id }: { label: string; id: string; children: ReactNode }) {
  return (
    <div className="space-y-1">
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      {children}
    </div>
  );
}

/** Queue filters; each change applies at once (a filter form, not navigation). */
export function QueueFiltersForm({ projectId, filters, onChange }: { projectId: string; filters: QueueFilters; onChange: (next: QueueFilters) => void }) {
  const base = useId();
  const id = (name: string) => `${base}-${name}`;
  const folders = useFolders(projectId);
  const set = <K extends keyof QueueFilters>(key: K, value: QueueFilters[K]) => onChange({ ...filters, [key]: value });
  const active = activeFilterCount(filters);

  return (
    <form
      aria-label="Queue filters"
      data-testid="queue-filters"
      className="grid grid-cols-2 gap-3 rounded-lg border border-slate-300 bg-white p-4 sm:grid-cols-3 lg:grid-cols-5"
      onSubmit={(event) => event.preventDefault()}
    >
      <Field label="Type" id={id("type")}>
        <select id={id("type")} className={inputClass} value={filters.type} onChange={(e) => set("type", e.target.value as QueueFilters["type"])}>
          <option value="">All types</option>
          {Object.entries(ASSET_TYPE_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Category" id={id("category")}>
        <select
          id={id("category")}
          className={inputClass}
          value={filters.category}
          onChange={(e) => set("category", e.target.value as QueueFilters["category"])}
        >
          <option value="">Any category</option>
          {CATEGORIES.map((category) => (
            <option key={category} value={category}>
              {CATEGORY_LABELS[category]}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Minimum likelihood" id={id("likelihood")}>
        <select
          id={id("likelihood")}
          className={inputClass}
          value={filters.likelihood}
          disabled={!filters.category}
          aria-describedby={filters.category ? undefined : id("likelihood-hint")}
          onChange={(e) => set("likelihood", e.target.value as QueueFilters["likelihood"])}
        >
          <option value="">Possible (default)</option>
          {LIKELIHOODS.map((likelihood) => (
            <option key={likelihood} value={likelihood}>
              {LIKELIHOOD_LABELS[likelihood]}
            </option>
          ))}
        </select>
        {filters.category ? null : (
          <p id={id("likelihood-hint")} className="text-xs text-slate-700">
            Choose a category first.
          </p>
        )}
      </Field>
      <Field label="Folder" id={id("folder")}>
        <select id={id("folder")} className={inputClass} value={filters.folderId} onChange={(e) => set("folderId", e.target.value)}>
          <option value="">All folders</option>
          <option value="root">Not in a folder</option>
          {folderOptions(folders.data?.folders ?? []).map((folder) => (
            <option key={folder.id} value={folder.id}>
              {folder.label}
            </option>
          ))}
        </select>
        {folders.isError ? <p className="text-xs text-red-800">Folders could not be loaded.</p> : null}
      </Field>
      <Field label="Reason" id={id("reason")}>
        <select id={id("reason")} className={inputClass} value={filters.reason} onChange={(e) => set("reason", e.target.value as QueueFilters["reason"])}>
          <option value="">Any reason</option>
          {Object.entries(REASON_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Created from" id={id("from")}>
        <input id={id("from")} type="date" className={inputClass} value={filters.from} max={filters.to || undefined} onChange={(e) => set("from", e.target.value)} />
      </Field>
      <Field label="Created up to (inclusive)" id={id("to")}>
        <input id={id("to")} type="date" className={inputClass} value={filters.to} min={filters.from || undefined} onChange={(e) => set("to", e.target.value)} />
      </Field>
      <Field label="Order" id={id("order")}>
        <select id={id("order")} className={inputClass} value={filters.order} onChange={(e) => set("order", e.target.value as QueueFilters["order"])}>
          <option value="newest">Newest first</option>
          <option value="oldest">Oldest first</option>
        </select>
      </Field>
      <div className="col-span-2 flex items-end gap-3 sm:col-span-1">
        <button type="button" className={buttonClass("secondary")} disabled={active === 0} onClick={() => onChange(EMPTY_FILTERS)}>
          Reset filters
        </button>
        <span className="pb-2 text-sm text-slate-700" aria-live="polite">
          {active === 0 ? "No filters" : `${active} filter${active === 1 ? "" : "s"} on`}
        </span>
      </div>
    </form>
  );
}
