/**
 * Where asset bytes live in storage. `storageId` on an asset is the key of its original content.
 * Originals sit flat in 256 shard folders per project (by the id's first two hex digits): one new
 * file per upload and no new folder, so writing one durably needs a single folder sync. Content
 * derived from an asset (previews, lens outputs) lives under its own prefix.
 */
export function assetContentKey(projectId: string, assetId: string): string {
  return `projects/${projectId}/originals/${assetId.slice(0, 2)}/${assetId}`;
}

/** Everything derived from an asset: its preview, CDN outputs and extracted children's bytes. */
export function derivedContentPrefix(projectId: string, assetId: string): string {
  return `projects/${projectId}/derived/${assetId}/`;
}

/** The asset's preview (WebP), made at processing time; under the derived prefix, so removing content removes it. */
export function previewContentKey(projectId: string, assetId: string): string {
  return `${derivedContentPrefix(projectId, assetId)}preview/preview.webp`;
}

/** A video's sampled frame `index` (JPEG, at most 320 px), kept for reviewers' timeline; under the derived prefix. */
export function frameThumbnailKey(projectId: string, assetId: string, index: number): string {
  return `${derivedContentPrefix(projectId, assetId)}frames/${index}.jpg`;
}

/** The CDN's transform and lens outputs of an asset; under the derived prefix too. */
export function cdnCachePrefix(projectId: string, assetId: string): string {
  return `${derivedContentPrefix(projectId, assetId)}cdn/`;
}

export function uploadPartKey(projectId: string, assetId: string, partNumber: number, nonce: string): string {
  return `projects/${projectId}/uploads/${assetId}/${partNumber}-${nonce}`;
}

export function uploadPrefix(projectId: string, assetId: string): string {
  return `projects/${projectId}/uploads/${assetId}/`;
}

/**
 * Downscaled copies of an image or of a video's frames, written by the analysis for the labelling
 * step that runs after the decision (when the original may be gone already). Outside the derived
 * prefix, so the decision's content removal leaves them; the labelling step deletes them, and so
 * do DELETE of the asset or its content.
 */
export function labelSourcePrefix(projectId: string, assetId: string): string {
  return `projects/${projectId}/label-sources/${assetId}/`;
}

export function labelSourceKey(projectId: string, assetId: string, generation: number, index: number): string {
  return `${labelSourcePrefix(projectId, assetId)}${generation}-${index}.jpg`;
}
