"use client";

import { useEffect, useState } from "react";
import { buttonClass } from "@/components/portal/styles";
import { EmptyState, ErrorState, Spinner } from "@/components/portal/ui";
import { AssetFiltersForm, DEFAULT_FILTERS, filtersChanged, type AssetListFilters } from "./asset-filters";
import { AssetTable } from "./asset-table";
import { useFolderAssets } from "./hooks";
import { MoveAssetsBar } from "./move-assets-bar";

/** The name filter waits this long after the last key, so typing does not send a request per letter. */
const NAME_DELAY_MS = 300;

function useDebounced<T>(value: T, delay: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return settled;
}

/**
 * The assets directly in the chosen folder, with the API list's filters and paging. Rendered with a
 * key per folder, so choosing another folder starts on page 1 with nothing selected.
 */
export function FolderAssets({
  projectId,
  folderId,
  folderLabel,
  canWrite,
  options,
  movePending,
  onMove,
}: {
  projectId: string;
  folderId: string;
  folderLabel: string;
  canWrite: boolean;
  options: { id: string; label: string }[];
  movePending: boolean;
  onMove: (assetIds: string[], destination: string, clear: () => void) => void;
}) {
  const [filters, setFilters] = useState<AssetListFilters>(DEFAULT_FILTERS);
  const [pageIndex, setPageIndex] = useState(0);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const name = useDebounced(filters.name.trim(), NAME_DELAY_MS);
  const query = useFolderAssets(projectId, {
    folderId,
    type: filters.type || undefined,
    status: filters.status || undefined,
    name: name || undefined,
    sort: filters.sort,
    pageSize: filters.pageSize,
    pageIndex,
  });
  const items = query.data?.items ?? [];
  const total = query.data?.total ?? 0;
  const pages = Math.max(1, Math.ceil(total / filters.pageSize));

  const changeFilters = (next: AssetListFilters) => {
    setFilters(next);
    setPageIndex(0);
    setSelected(new Set());
  };
  const toggle = (id: string, on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(id);
      else next.delete(id);
      return next;
    });

  return (
    <section aria-labelledby="folder-assets-heading" className="space-y-3">
      <h2 id="folder-assets-heading" className="text-lg font-semibold text-slate-900">
        Assets in {folderLabel}
      </h2>
      <AssetFiltersForm filters={filters} onChange={changeFilters} />
      {canWrite && items.length > 0 ? (
        <MoveAssetsBar
          count={selected.size}
          current={folderId}
          options={options}
          pending={movePending}
          onMove={(destination) => onMove([...selected], destination, () => setSelected(new Set()))}
        />
      ) : null}
      {query.isPending ? (
        <Spinner label="Loading assets…" />
      ) : query.isError ? (
        <ErrorState error={query.error} title="Could not load the assets" onRetry={() => void query.refetch()} />
      ) : items.length === 0 ? (
        <EmptyState title={total === 0 && pageIndex === 0 ? "No assets here" : "Nothing on this page"}>
          {filtersChanged({ ...filters, sort: DEFAULT_FILTERS.sort, pageSize: DEFAULT_FILTERS.pageSize })
            ? "No asset matches these filters."
            : canWrite
              ? "Move assets here with “Move selected to…” or by dragging them onto a folder."
              : "No asset is directly in this folder."}
        </EmptyState>
      ) : (
        // Not dimmed while the next page loads: faded text fails contrast; aria-busy says it instead.
        <div aria-busy={query.isFetching}>
          <AssetTable projectId={projectId} items={items} selected={selected} canWrite={canWrite} onToggle={toggle} onSelectAll={(on) => setSelected(on ? new Set(items.map((item) => item.id)) : new Set())} />
        </div>
      )}
      {query.data && !query.isError && (total > 0 || pageIndex > 0) ? (
        <nav aria-label="Asset pages" className="flex flex-wrap items-center gap-3">
          {pages > 1 || pageIndex > 0 ? (
            <button type="button" className={buttonClass("secondary")} disabled={pageIndex === 0} onClick={() => setPageIndex(pageIndex - 1)}>
              Previous page
            </button>
          ) : null}
          <span className="text-sm text-slate-800" data-testid="asset-page-status" aria-live="polite">
            Page {Math.min(pageIndex + 1, pages)} of {pages} · {total} asset{total === 1 ? "" : "s"}
          </span>
          {pages > 1 || pageIndex > 0 ? (
            <button type="button" className={buttonClass("secondary")} disabled={!query.data.hasMore} onClick={() => setPageIndex(pageIndex + 1)}>
              Next page
            </button>
          ) : null}
        </nav>
      ) : null}
    </section>
  );
}
