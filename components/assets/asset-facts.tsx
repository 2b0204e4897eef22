"use client";

import Link from "next/link";
import type { ReactNode } from "react";
import type { AssetDetail, QueueItem } from "@/lib/portal/types";
import { Badge, formatDateTime } from "@/components/portal/ui";
import { assetTypeLabel, CATEGORY_LABELS, formatScore, LIKELIHOOD_LABELS } from "./report-labels";

interface MetadataItem {
  id: string;
  value: string | number | boolean | null;
}

/** Asset metadata as the API stores it: a list of {id, value}; anything else is not shown. */
function metadataItems(value: unknown): MetadataItem[] {
  if (!Array.isArray(value)) return [];
  return value.filter((item): item is MetadataItem => !!item && typeof item === "object" && typeof (item as MetadataItem).id === "string");
}

function formatBytes(bytes: number | null): string {
  if (bytes === null) return "—";
  const units = ["bytes", "KB", "MB", "GB", "TB"];
  let size = bytes;
  let unit = 0;
  while (size >= 1024 && unit < units.length - 1) {
    size /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${bytes} bytes` : `${size.toFixed(1)} ${units[unit]}`;
}

const STATUS_TONES = { approved: "success", rejected: "danger", error: "warning", pending: "info", uploading: "info" } as const;

export function StatusBadge({ status }: { status: string }) {
  const tone = STATUS_TONES[status as keyof typeof STATUS_TONES] ?? "neutral";
  return <Badge tone={tone}>{status.charAt(0).toUpperCase() + status.slice(1)}</Badge>;
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-[9rem_1fr] gap-2 py-1.5">
      <dt className="font-medium text-slate-900">{label}</dt>
      <dd className="min-w-0 break-words text-slate-800">{children}</dd>
    </div>
  );
}

/** Identity and storage facts, the uploader's metadata and tags. */
export function AssetFacts({ detail }: { detail: AssetDetail }) {
  const { asset } = detail.item;
  const metadata = metadataItems(asset.metadata);
  return (
    <div className="space-y-4 text-sm">
      <dl className="divide-y divide-slate-200" data-testid="asset-facts">
        <Row label="Type">{assetTypeLabel(asset.type)}</Row>
        <Row label="Status">
          <StatusBadge status={asset.status} />
        </Row>
        <Row label="Action">{asset.moderationAction ?? "—"}</Row>
        <Row label="Folder">{detail.folder?.name ?? "Not in a folder"}</Row>
        <Row label="Format">{asset.fileFormat ?? "—"}</Row>
        <Row label="Size">{formatBytes(asset.sizeInBytes)}</Row>
        <Row label="Created">{formatDateTime(asset.createdAt)}</Row>
        <Row label="Updated">{formatDateTime(asset.updatedAt)}</Row>
        {asset.externalId ? <Row label="External id">{asset.externalId}</Row> : null}
        <Row label="Asset id">
          <span className="font-mono text-xs">{asset.id}</span>
        </Row>
        {asset.description ? <Row label="Description">{asset.description}</Row> : null}
      </dl>

      <section aria-labelledby="asset-tags">
        <h3 id="asset-tags" className="font-semibold text-slate-900">
          Tags
        </h3>
        {asset.tags.length === 0 ? (
          <p className="text-slate-800">No tags.</p>
        ) : (
          <ul className="mt-1 flex flex-wrap gap-1.5" data-testid="asset-tags">
            {asset.tags.map((tag) => (
              <li key={tag}>
                <Badge>{tag}</Badge>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="asset-metadata">
        <h3 id="asset-metadata" className="font-semibold text-slate-900">
          Metadata
        </h3>
        {metadata.length === 0 ? (
          <p className="text-slate-800">No metadata.</p>
        ) : (
          <dl className="divide-y divide-slate-200" data-testid="asset-metadata">
            {metadata.map((item) => (
              <Row key={item.id} label={item.id}>
                {item.value === null ? "—" : String(item.value)}
              </Row>
            ))}
          </dl>
        )}
      </section>
    </div>
  );
}

/** Extracted children (OCR text, document pages and images), each linking to its own detail page. */
export function ChildrenList({ projectId, items }: { projectId: string; items: QueueItem[] }) {
  if (items.length === 0) return <p className="text-sm text-slate-800">This asset has no extracted parts.</p>;
  return (
    <ul className="divide-y divide-slate-200 rounded-md border border-slate-300 bg-white" data-testid="asset-children">
      {items.map((child) => (
        <li key={child.asset.id} data-testid="asset-child" data-asset-id={child.asset.id} className="flex flex-wrap items-center gap-2 p-3 text-sm">
          <Link href={`/projects/${projectId}/assets/${child.asset.id}`} className="font-medium text-blue-800 underline underline-offset-2">
            {child.asset.name}
          </Link>
          <Badge>{assetTypeLabel(child.asset.type)}</Badge>
          <StatusBadge status={child.asset.status} />
          {child.topCategory ? (
            <span className="text-slate-800">
              {CATEGORY_LABELS[child.topCategory.category]}: {LIKELIHOOD_LABELS[child.topCategory.likelihood]} ({formatScore(child.topCategory.score)})
            </span>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
