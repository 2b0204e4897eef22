"use client";

import { useId } from "react";
import type { FolderAssetFilters } from "@/lib/portal/types";
import { ASSET_TYPE_LABELS } from "@/components/assets/report-labels";
import { buttonClass, inputClass, labelClass } from "@/components/portal/styles";
import { Choice } from "./choice";

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

const PAGE_SIZES = { 10: "10", 20: "20", 50: "50", 100: "100" };

/** Changes apply at once; the name search waits for typing to pause (see FolderAssets). */
export function AssetFiltersForm({ filters, onChange }: { filters: AssetListFilters; onChange: (next: AssetListFilters) => void }) {
  const base = useId();
  const id = (name: string) => `${base}-${name}`;
  const set = (patch: Partial<AssetListFilters>) => onChange({ ...filters, ...patch });
  return (
    <form aria-label="Asset filters" className="grid grid-cols-2 gap-3 sm:grid-cols-3 xl:grid-cols-[minmax(10rem,1.4fr)_repeat(2,minmax(7rem,1fr))_minmax(11rem,1.2fr)_minmax(5rem,0.6fr)_auto]" onSubmit={(event) => event.preventDefault()}>
      <div className="col-span-2 space-y-1 sm:col-span-3 xl:col-span-1">
        <label htmlFor={id("name")} className={labelClass}>
          Name contains
        </label>
        <input id={id("name")} type="search" className={inputClass} value={filters.name} maxLength={200} onChange={(e) => set({ name: e.target.value })} />
      </div>
      <Choice id={id("type")} label="Type" value={filters.type} any="All types" choices={ASSET_TYPE_LABELS} onPick={(v) => set({ type: v as AssetListFilters["type"] })} />
      <Choice id={id("status")} label="Status" value={filters.status} any="Any status" choices={STATUS_LABELS} onPick={(v) => set({ status: v as AssetListFilters["status"] })} />
      <Choice id={id("sort")} label="Order" value={filters.sort} choices={SORT_LABELS} onPick={(v) => set({ sort: v as AssetListFilters["sort"] })} />
      <Choice id={id("size")} label="Per page" value={filters.pageSize} choices={PAGE_SIZES} onPick={(v) => set({ pageSize: Number(v) })} />
      <div className="flex items-end">
        <button type="button" className={buttonClass("secondary")} disabled={!filtersChanged(filters)} onClick={() => onChange(DEFAULT_FILTERS)}>
          Reset filters
        </button>
      </div>
    </form>
  );
}
