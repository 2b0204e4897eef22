import { cdnCachePrefix } from "@/lib/assets/storage-keys";
import { processSingleton } from "@/lib/core/singleton";
import { assetStates, type AssetChange } from "@/lib/cdn/asset-state";
import { memoryCache, persistedCopies } from "@/lib/cdn/derived-cache";
import { storage } from "@/lib/storage";

/**
 * Keeps derived copies from outliving an asset's right to be served: on every change notification
 * the asset's memory entries go, and when the asset can no longer be served (rejected, failed,
 * held, content removed) its stored derived copies are deleted too — whoever changed it (pipeline,
 * reviewer, API, an operator in SQL). Every server process does this; deleting twice is harmless.
 */
export function startCdnInvalidation(): void {
  processSingleton("cdn-invalidation", () => {
    const states = assetStates();
    states.onChange((change) => {
      memoryCache().dropAsset(change === "*" ? "*" : change.id);
      if (change !== "*" && change.blocked) void dropStoredCopies(change);
    });
    states.cache.start();
    return true;
  });
}

async function dropStoredCopies(change: AssetChange): Promise<void> {
  try {
    // A copy still being written would land after the deletion.
    await persistedCopies(change.id);
    await storage().deletePrefix(cdnCachePrefix(change.projectId, change.id));
  } catch (error) {
    console.warn(`[cdn] could not drop derived copies of ${change.id}: ${(error as Error).message}`);
  }
}
