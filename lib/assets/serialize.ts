import type { Asset as AssetRow, Prisma } from "@/lib/db/generated/client";
import type { AssetType } from "@/lib/assets/content-type";
import type { Checksums, ImageData, ImageLabels, PreviewImage, SafetyHold } from "@/lib/assets/field-schemas";
import type { ApiAsset, MetadataItem, ProcessingOptions, Report } from "@/lib/assets/schemas";
import type { EventAssetSnapshot } from "@/lib/events/catalogue";

/** Prisma enum names use `_` where the API (and the database) use `-`. */
export function apiAssetType(type: AssetRow["type"]): AssetType {
  return type.replace("_", "-") as AssetType;
}

export function dbAssetType(type: AssetType): AssetRow["type"] {
  return type.replace("-", "_") as AssetRow["type"];
}

const ms = (d: Date | null) => (d ? d.getTime() : null);

/**
 * A JSON column read back as the documented type of its field. Every writer of these columns is
 * typed with the same schema (field-schemas.ts, report-schema.ts, the request schemas), so the
 * value stored is the value documented; the cast only tells Prisma's JsonValue what it holds.
 */
function storedJson<T>(value: Prisma.JsonValue): T | null {
  return (value ?? null) as T | null;
}

/** The Asset object of the API (every field present, null when unset), typed by its response schema. */
export function serializeAsset(row: AssetRow): ApiAsset {
  return {
    id: row.id,
    projectId: row.projectId,
    sizeInBytes: row.sizeInBytes === null ? null : Number(row.sizeInBytes),
    userId: row.userId,
    parentId: row.parentId,
    folderId: row.folderId,
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
    checksums: storedJson<Checksums>(row.checksums),
    imageData: storedJson<ImageData>(row.imageData),
    // Nothing records document properties yet (documentDataSchema).
    documentData: null,
    name: row.name,
    fileFormat: row.fileFormat,
    fileExtension: row.fileExtension,
    description: row.description,
    externalId: row.externalId,
    externalUrl: row.externalUrl,
    previewImage: storedJson<PreviewImage>(row.previewImage),
    storageId: row.storageId,
    uploadPartsReceived: row.uploadPartsReceived,
    type: apiAssetType(row.type),
    metadata: storedJson<MetadataItem[]>(row.metadata),
    tags: row.tags,
    report: storedJson<Report>(row.report),
    moderationAction: row.moderationAction,
    status: row.status,
    safetyHold: storedJson<SafetyHold>(row.safetyHold),
    rejectionNote: row.rejectionNote,
    extractedText: row.extractedText,
    imageLabels: imageLabelsOf(row.imageLabels),
    processingOptions: storedJson<NonNullable<ProcessingOptions>>(row.processingOptions),
    visibility: row.visibility,
    storageDeletedAt: ms(row.storageDeletedAt),
  };
}

export type { ApiAsset };

export function assetSnapshot(row: AssetRow): EventAssetSnapshot {
  return {
    id: row.id,
    externalId: row.externalId,
    status: row.status,
    flagged: row.flagged,
    moderationAction: row.moderationAction,
  };
}

/** Labels stored before descriptions existed have none. */
function imageLabelsOf(stored: Prisma.JsonValue): ImageLabels | null {
  const labels = storedJson<ImageLabels>(stored);
  return labels ? { ...labels, description: labels.description ?? null } : null;
}
