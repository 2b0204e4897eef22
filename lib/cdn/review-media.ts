import { frameThumbnailKey } from "@/lib/assets/storage-keys";
import { ApiError } from "@/lib/core/errors";
import { findCdnAsset, type CdnAsset } from "@/lib/cdn/asset-state";
import type { CdnRequest, CdnResponse } from "@/lib/cdn/response";
import { serveStored } from "@/lib/cdn/serve";
import { storage } from "@/lib/storage";

/**
 * Media for people deciding on an asset (the portal, members with `assets:download`, authorised by
 * the caller). Unlike public delivery, a rejected or failed asset is shown: a reviewer has to see
 * what they judge. What stays refused: content under a safety hold (423: nobody looks at it
 * through Sieve), content never retained or removed (404). Never cached anywhere.
 */
export type ReviewResource = "content" | "preview";

const REVIEW_CACHE_CONTROL = "private, no-store";

async function reviewableAsset(projectId: string, assetId: string): Promise<CdnAsset> {
  const asset = await findCdnAsset(projectId, assetId);
  if (!asset || asset.id !== assetId) throw new ApiError("asset/not-found");
  if (asset.held) throw new ApiError("asset/safety-held", "This asset is under a safety hold; its media is not shown.");
  return asset;
}

const contentGone = () => new ApiError("asset/not-found", "The asset's content was not retained or has been removed.");

export async function serveForReview(request: CdnRequest, projectId: string, assetId: string, resource: ReviewResource): Promise<CdnResponse> {
  const asset = await reviewableAsset(projectId, assetId);
  if (resource === "content" && (asset.contentRemoved || !asset.storageId || !asset.keepContent)) throw contentGone();
  const response = await serveStored(asset, resource === "content" ? "original" : "preview", request, REVIEW_CACHE_CONTROL);
  response.memoKey = undefined; // never the public hot path
  return response;
}

/** A video's sampled frame `index` (the report's frame segments, in order), kept with retained content. */
export async function serveFrameForReview(projectId: string, assetId: string, index: number): Promise<CdnResponse> {
  const asset = await reviewableAsset(projectId, assetId);
  if (asset.contentRemoved || !asset.keepContent) throw contentGone();
  const object = await storage().get(frameThumbnailKey(projectId, assetId, index));
  if (!object) throw new ApiError("asset/not-found", `No frame ${index} was kept for this asset.`);
  const headers = { "Content-Type": "image/jpeg", "Cache-Control": REVIEW_CACHE_CONTROL, "X-Content-Type-Options": "nosniff", "Content-Length": String(object.sizeInBytes) };
  return { status: 200, headers, body: object.body };
}
