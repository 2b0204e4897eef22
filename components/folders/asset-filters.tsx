"use client";

import { useId, type ReactNode } from "react";
import type { FolderAssetFilters } from "@/lib/portal/types";
import { ASSET_TYPE_LABELS } from "@/components/assets/report-labels";
import { buttonClass, inputClass, labelClass } from "@/components/portal/styles";

/** The filters of the API's asset list that a person uses; "" means any. */
export interface AssetListFilters {
  type: NonNullable<FolderAssetFilters["type"]> | "";
  status: NonNullable<FolderAssetFilters["status"]> | "";
  name: string;
  sort: NonNullable<FolderAssetFilters["sort"]>;
  pageSize: number;
}

export const DEFAULT_FILTERS: AssetListFilters = { type: "", status: "", name: "", sort: "-createdAt", pageSize: 20 };

export const filtersChanged = (filters: AssetListFilters) =>
  (Object.keys(DEFAULT_FILTERS) as (keyof AssetListFilters)[]).some((key) => filters[key] !== DEFAULT_FILTERS[key]);

export const STATUS_LABELS = {
  uploading: "Uploading",
  pending: "Being checked",
  approved: "Approved",
  rejected: "Rejected",
  error: "Error",
} as const satisfies Record<NonNullable<FolderAssetFilters["status"]>, string>;

const SORT_LABELS = {
  "-createdAt": "Newest first",
  createdAt: "Oldest first",
  "-updatedAt": "Recently changed",
  updatedAt: "Least recently changed",
  name: "Name A–Z",
  "-name": "Name Z–A",
  "-sizeInBytes": "Largest first",
  sizeInBytes: "Smallest first",
} as const satisfies Record<AssetListFilters["sort"], string>;

function Field({ id, label, children }: { id: string; label: string; children: ReactNode }) {
  return (
    <div className="space-y-1">
      <label htmlFor={id} className={labelClass}>
        {label}
      </label>
      {children}
    </div>
  );
}

/** Changes apply at once; the name search waits for typing to pause (see FolderAssets). */
export function AssetFiltersForm({ filters, onChange }: { filters: AssetListFilters; onChange: (next: AssetListFilters) => void }) {
  const base = useId();
  const id = (name: string) => `${base}-${name}`;
  const set = <K extends keyof AssetListFilters>(key: K, value: AssetListFilters[K]) => onChange({ ...filters, [key]: value });
  const changed = filtersChanged(filters);
  return (
    <form aria-label="Asset filters" className="grid grid-cols-2 gap-3 sm:grid-cols-3 xl:grid-cols-[minmax(10rem,1.4fr)_repeat(2,minmax(7rem,1fr))_minmax(11rem,1.2fr)_minmax(5rem,0.6fr)_auto]" onSubmit={(event) => event.preventDefault()}>
      <div className="col-span-2 sm:col-span-3 xl:col-span-1">
        <Field id={id("name")} label="Name contains">
          <input id={id("name")} type="search" className={inputClass} value={filters.name} maxLength={200} onChange={(e) => set("name", e.target.value)} />
        </Field>
      </div>
      <Field id={id("type")} label="Type">
        <select id={id("type")} className={inputClass} value={filters.type} onChange={(e) => set("type", e.target.value as AssetListFilters["type"])}>
          <option value="">All types</option>
          {Object.entries(ASSET_TYPE_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <Field id={id("status")} label="Status">
        <select id={id("status")} className={inputClass} value={filters.status} onChange={(e) => set("status", e.target.value as AssetListFilters["status"])}>
          <option value="">Any status</option>
          {Object.entries(STATUS_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <Field id={id("sort")} label="Order">
        <select id={id("sort")} className={inputClass} value={filters.sort} onChange={(e) => set("sort", e.target.value as AssetListFilters["sort"])}>
          {Object.entries(SORT_LABELS).map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
      </Field>
      <Field id={id("size")} label="Per page">
        <select id={id("size")} className={inputClass} value={filters.pageSize} onChange={(e) => set("pageSize", Number(e.target.value))}>
          {[10, 20, 50, 100].map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
      </Field>
      <div className="flex items-end">
        <button type="button" className={buttonClass("secondary")} disabled={!changed} onClick={() => onChange(DEFAULT_FILTERS)}>
          Reset filters
        </button>
      </div>
    </form>
  );
}
