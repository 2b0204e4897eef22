"use client";

import Link from "next/link";
import type { FolderAsset } from "@/lib/portal/types";
import { assetTypeLabel } from "@/components/assets/report-labels";
import { Badge, formatDateTime } from "@/components/portal/ui";
import { ASSETS_TYPE } from "./drag";
import { STATUS_LABELS } from "./asset-filters";

const STATUS_TONES = { approved: "success", rejected: "danger", error: "danger", pending: "info", uploading: "neutral" } as const;

function formatSize(bytes: number | null): string {
  if (bytes === null) return "—";
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * The folder's assets. Each row has a checkbox (the keyboard path: select, then "Move to…") and,
 * for writers, can be dragged onto a folder of the tree (with the other selected rows).
 */
export function AssetTable({
  projectId,
  items,
  selected,
  canWrite,
  onToggle,
  onSelectAll,
}: {
  projectId: string;
  items: FolderAsset[];
  selected: ReadonlySet<string>;
  canWrite: boolean;
  onToggle: (id: string, on: boolean) => void;
  onSelectAll: (on: boolean) => void;
}) {
  const allSelected = items.length > 0 && items.every((item) => selected.has(item.id));
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-300 bg-white">
      <table className="w-full text-left text-sm" data-testid="folder-assets">
        <caption className="sr-only">Assets in this folder</caption>
        <thead className="border-b border-slate-300 bg-slate-50 text-slate-800">
          <tr>
            {canWrite ? (
              <th scope="col" className="w-10 px-3 py-2">
                <input
                  type="checkbox"
                  className="size-4 accent-blue-700"
                  aria-label="Select all on this page"
                  checked={allSelected}
                  ref={(box) => {
                    if (box) box.indeterminate = selected.size > 0 && !allSelected;
                  }}
                  onChange={(event) => onSelectAll(event.target.checked)}
                />
              </th>
            ) : null}
            <th scope="col" className="px-3 py-2 font-semibold">Name</th>
            <th scope="col" className="px-3 py-2 font-semibold">Type</th>
            <th scope="col" className="px-3 py-2 font-semibold">Status</th>
            <th scope="col" className="hidden px-3 py-2 font-semibold sm:table-cell">Size</th>
            <th scope="col" className="hidden px-3 py-2 font-semibold md:table-cell">Created</th>
          </tr>
        </thead>
        <tbody>
          {items.map((asset) => (
            <tr
              key={asset.id}
              data-testid="folder-asset-row"
              data-asset-id={asset.id}
              draggable={canWrite}
              onDragStart={(event) => {
                // Dragging a selected row carries the whole selection; an unselected one goes alone.
                const ids = selected.has(asset.id) ? [...selected] : [asset.id];
                event.dataTransfer.setData(ASSETS_TYPE, JSON.stringify(ids));
                event.dataTransfer.effectAllowed = "move";
              }}
              className={`border-b border-slate-200 last:border-0 ${selected.has(asset.id) ? "bg-blue-50" : ""} ${canWrite ? "cursor-grab" : ""}`}
            >
              {canWrite ? (
                <td className="px-3 py-2">
                  <input
                    type="checkbox"
                    className="size-4 accent-blue-700"
                    aria-label={`Select ${asset.name}`}
                    checked={selected.has(asset.id)}
                    onChange={(event) => onToggle(asset.id, event.target.checked)}
                  />
                </td>
              ) : null}
              <td className="max-w-40 truncate px-3 py-2 sm:max-w-64">
                <Link href={`/projects/${projectId}/assets/${asset.id}`} className="font-medium text-blue-800 underline-offset-2 hover:underline">
                  {asset.name}
                </Link>
              </td>
              <td className="px-3 py-2 text-slate-800">{assetTypeLabel(asset.type)}</td>
              <td className="px-3 py-2">
                <Badge tone={STATUS_TONES[asset.status]}>{STATUS_LABELS[asset.status]}</Badge>
              </td>
              <td className="hidden px-3 py-2 text-slate-800 sm:table-cell">{formatSize(asset.sizeInBytes)}</td>
              <td className="hidden px-3 py-2 text-slate-800 md:table-cell">{formatDateTime(asset.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
