import { assertNotHeld, mapConstraintViolation } from "@/lib/assets/lookup";
import type { PatchAssetBody } from "@/lib/assets/schemas";
import { db } from "@/lib/db/client";
import { Prisma, type Asset as AssetRow } from "@/lib/db/generated/client";
import { requireFolderInProject } from "@/lib/folders/lookup";
import { ApiError, isApiError } from "@/lib/core/errors";

/** PATCH: only the fields sent change; `null` clears a nullable field. */
export async function updateAsset(asset: AssetRow, patch: PatchAssetBody): Promise<AssetRow> {
  assertNotHeld(asset);
  const data: Prisma.AssetUpdateInput = {};
  if (patch.name !== undefined) data.name = patch.name;
  if (patch.description !== undefined) data.description = patch.description;
  if (patch.visibility !== undefined) data.visibility = patch.visibility;
  if (patch.metadata !== undefined) data.metadata = patch.metadata === null ? Prisma.DbNull : patch.metadata;
  if (patch.tags !== undefined) data.tags = patch.tags === null ? [] : [...new Set(patch.tags)];
  if (patch.externalId !== undefined) data.externalId = patch.externalId;
  if (patch.externalUrl !== undefined) data.externalUrl = patch.externalUrl;
  return guardUpdate(() => db().asset.update({ where: { id: asset.id }, data }));
}

/** Moves an asset into a folder of its project, or to the root with `folderId: null`. */
export async function moveAsset(asset: AssetRow, folderId: string | null): Promise<AssetRow> {
  assertNotHeld(asset);
  if (folderId !== null) await requireFolderInProject(asset.projectId, folderId);
  return guardUpdate(() => db().asset.update({ where: { id: asset.id }, data: { folderId } }));
}

/** Known failures keep their codes; anything unexpected becomes the spec's `asset/update-failed`. */
export async function guardUpdate(update: () => Promise<AssetRow>): Promise<AssetRow> {
  try {
    return await update();
  } catch (error) {
    const mapped = mapConstraintViolation(error);
    if (isApiError(mapped)) throw mapped;
    if ((error as { code?: string }).code === "P2025") throw new ApiError("asset/not-found");
    throw new ApiError("asset/update-failed", undefined, { cause: error });
  }
}
