import { assertNotHeld } from "@/lib/assets/lookup";
import { derivedContentPrefix, labelSourcePrefix, uploadPrefix } from "@/lib/assets/storage-keys";
import { db } from "@/lib/db/client";
import { Prisma, type Asset as AssetRow } from "@/lib/db/generated/client";
import { ApiError } from "@/lib/core/errors";
import { storage } from "@/lib/storage";

/** The asset and all its descendants (children extracted from it, and theirs). */
interface StoredAsset {
  id: string;
  projectId: string;
  storageId: string | null;
}

export async function withDescendants(asset: AssetRow): Promise<StoredAsset[]> {
  return db().$queryRaw<StoredAsset[]>`
    WITH RECURSIVE tree AS (
      SELECT id, project_id, storage_id FROM assets WHERE id = ${asset.id}::uuid
      UNION ALL
      SELECT a.id, a.project_id, a.storage_id FROM assets a JOIN tree t ON a.parent_id = t.id
    )
    SELECT id::text AS id, project_id::text AS "projectId", storage_id AS "storageId" FROM tree`;
}

/**
 * Removes stored bytes first, then records it: if the record update fails, a retry finds nothing to
 * delete and finishes, and content is never left behind while the record says it is gone.
 */
export async function removeStoredContent(assets: StoredAsset[], options: { labelSources?: boolean } = {}): Promise<void> {
  for (const a of assets) {
    if (a.storageId) await storage().delete(a.storageId);
    await storage().deletePrefix(derivedContentPrefix(a.projectId, a.id));
    await storage().deletePrefix(uploadPrefix(a.projectId, a.id));
    // The decision's removal leaves the labelling step its downscaled copies; a user's DELETE does not.
    if (options.labelSources) await storage().deletePrefix(labelSourcePrefix(a.projectId, a.id));
  }
}

/** DELETE /assets/:id/content — the records and reports stay; `storageDeletedAt` says when. The preview goes with the content. */
export async function deleteAssetContent(asset: AssetRow): Promise<AssetRow> {
  assertNotHeld(asset);
  if (asset.status === "uploading") {
    throw new ApiError("asset/invalid-state", "The asset is still uploading; delete the asset to abandon the upload.");
  }
  const tree = await withDescendants(asset);
  await removeStoredContent(tree, { labelSources: true });
  const now = new Date();
  await db().asset.updateMany({
    where: { id: { in: tree.map((a) => a.id) }, storageDeletedAt: null },
    data: { storageId: null, storageDeletedAt: now, previewImage: Prisma.DbNull },
  });
  return db().asset.findUniqueOrThrow({ where: { id: asset.id } });
}

/** DELETE /assets/:id — the asset, its descendants and all their stored content. */
export async function deleteAsset(asset: AssetRow): Promise<void> {
  assertNotHeld(asset);
  const tree = await withDescendants(asset);
  await removeStoredContent(tree, { labelSources: true });
  // Children go with their parent through the foreign key's ON DELETE CASCADE.
  await db().asset.deleteMany({ where: { id: asset.id } });
}
