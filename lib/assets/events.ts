import { assetSnapshot, apiAssetType } from "@/lib/assets/serialize";
import type { Asset as AssetRow, Prisma } from "@/lib/db/generated/client";
import { recordEvent, type NewEvent } from "@/lib/events/record";

/** The `asset.uploaded` event of an asset (facts: asset-name, asset-type, file-format). */
export async function recordUploadedEvent(tx: Prisma.TransactionClient, row: AssetRow): Promise<void> {
  await recordEvent(tx, uploadedEventFor(row));
}

export function uploadedEventFor(row: AssetRow): NewEvent {
  return {
    projectId: row.projectId,
    type: "asset.uploaded",
    title: `Asset uploaded: ${row.name}`,
    userId: row.userId,
    asset: assetSnapshot(row),
    facts: [
      { key: "asset-name", value: row.name },
      { key: "asset-type", value: apiAssetType(row.type) },
      { key: "file-format", value: row.fileFormat },
    ],
  };
}
