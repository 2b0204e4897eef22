import { cdnCachePrefix } from "@/lib/assets/storage-keys";
import { sqlPool } from "@/lib/db/client";
import { processSingleton } from "@/lib/core/singleton";
import { assetStates } from "@/lib/cdn/asset-state";
import { memoryCache, persistedCopies } from "@/lib/cdn/derived-cache";
import { storage } from "@/lib/storage";

/**
 * Keeps derived copies from outliving an asset's right to be served: on every change notification
 * the asset's memory entries go, and when the asset can no longer be served (rejected, failed,
 * held, content removed) its stored derived copies are deleted too — whoever changed it (pipeline,
 * reviewer, API, an operator in SQL). Every server process does this; deleting twice is harmless.
 */
export const SELECT_BLOCKED_ASSET = `SELECT project_id::text AS "projectId" FROM assets
  WHERE id = $1::uuid AND (status IN ('rejected', 'error') OR safety_hold IS NOT NULL OR storage_deleted_at IS NOT NULL)`;

export function startCdnInvalidation(): void {
  processSingleton("cdn-invalidation", () => {
    const states = assetStates();
    states.onChange((assetId) => {
      memoryCache().dropAsset(assetId);
      if (assetId !== "*") void dropStoredCopiesIfBlocked(assetId);
    });
    states.cache.start();
    return true;
  });
}

async function dropStoredCopiesIfBlocked(assetId: string): Promise<void> {
  try {
    const { rows } = await sqlPool().query<{ projectId: string }>({ name: "sieve-cdn-blocked-asset", text: SELECT_BLOCKED_ASSET, values: [assetId] });
    const blocked = rows[0];
    if (!blocked) return;
    // A copy still being written would land after the deletion.
    await persistedCopies(assetId);
    await storage().deletePrefix(cdnCachePrefix(blocked.projectId, assetId));
  } catch (error) {
    console.warn(`[cdn] could not drop derived copies of ${assetId}: ${(error as Error).message}`);
  }
}
