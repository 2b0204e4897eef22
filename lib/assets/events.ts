import { assetSnapshot, apiAssetType } from "@/lib/assets/serialize";
import type { Asset as AssetRow, Prisma } from "@/lib/db/generated/client";
import { recordEvent, type NewEvent } from "@/lib/events/record";

/**
 * An event about an asset, from its row: the project, the asset snapshot, and the facts every asset
 * event starts with (asset-name, asset-type) before its own.
 */
export function assetEvent(row: AssetRow, event: Omit<NewEvent, "projectId" | "asset">): NewEvent {
  return {
    ...event,
    projectId: row.projectId,
    asset: assetSnapshot(row),
    facts: [{ key: "asset-name", value: row.name }, { key: "asset-type", value: apiAssetType(row.type) }, ...event.facts],
  };
}

/** The `asset.uploaded` event of an asset (facts: asset-name, asset-type, file-format). */
export async function recordUploadedEvent(tx: Prisma.TransactionClient, row: AssetRow): Promise<void> {
  await recordEvent(tx, uploadedEventFor(row));
}

export function uploadedEventFor(row: AssetRow): NewEvent {
  return assetEvent(row, {
    type: "asset.uploaded",
    title: `Asset uploaded: ${row.name}`,
    userId: row.userId,
    facts: [{ key: "file-format", value: row.fileFormat }],
  });
}
