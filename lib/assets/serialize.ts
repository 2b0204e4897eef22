import type { Asset as AssetRow } from "@/lib/db/generated/client";
import type { AssetType } from "@/lib/assets/content-type";
import type { EventAssetSnapshot } from "@/lib/events/catalogue";

/** Prisma enum names use `_` where the API (and the database) use `-`. */
export function apiAssetType(type: AssetRow["type"]): AssetType {
  return type.replace("_", "-") as AssetType;
}

export function dbAssetType(type: AssetType): AssetRow["type"] {
  return type.replace("-", "_") as AssetRow["type"];
}

const ms = (d: Date | null) => (d ? d.getTime() : null);

/** The Asset object of the API (every field present, null when unset). */
export function serializeAsset(row: AssetRow) {
  return {
    id: row.id,
    projectId: row.projectId,
    sizeInBytes: row.sizeInBytes === null ? null : Number(row.sizeInBytes),
    userId: row.userId,
    parentId: row.parentId,
    folderId: row.folderId,
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
    checksums: row.checksums ?? null,
    imageData: row.imageData ?? null,
    documentData: row.documentData ?? null,
    name: row.name,
    fileFormat: row.fileFormat,
    fileExtension: row.fileExtension,
    description: row.description,
    externalId: row.externalId,
    externalUrl: row.externalUrl,
    previewImage: row.previewImage ?? null,
    storageId: row.storageId,
    uploadPartsReceived: row.uploadPartsReceived,
    type: apiAssetType(row.type),
    metadata: row.metadata ?? null,
    tags: row.tags,
    report: row.report ?? null,
    moderationAction: row.moderationAction,
    status: row.status,
    safetyHold: row.safetyHold ?? null,
    rejectionNote: row.rejectionNote,
    extractedText: row.extractedText,
    processingOptions: row.processingOptions ?? null,
    visibility: row.visibility,
    storageDeletedAt: ms(row.storageDeletedAt),
  };
}

export type ApiAsset = ReturnType<typeof serializeAsset>;

export function assetSnapshot(row: AssetRow): EventAssetSnapshot {
  return {
    id: row.id,
    externalId: row.externalId,
    status: row.status,
    flagged: row.flagged,
    moderationAction: row.moderationAction,
  };
}
