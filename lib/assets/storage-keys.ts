/**
 * Where asset bytes live in storage. `storageId` on an asset is the key of its original content.
 * Originals sit flat in 256 shard folders per project (by the id's first two hex digits): one new
 * file per upload and no new folder, so writing one durably needs a single folder sync. Content
 * derived from an asset (previews, lens outputs) lives under its own prefix.
 */
export function assetContentKey(projectId: string, assetId: string): string {
  return `projects/${projectId}/originals/${assetId.slice(0, 2)}/${assetId}`;
}

export function derivedContentPrefix(projectId: string, assetId: string): string {
  return `projects/${projectId}/derived/${assetId}/`;
}

export function uploadPartKey(projectId: string, assetId: string, partNumber: number, nonce: string): string {
  return `projects/${projectId}/uploads/${assetId}/${partNumber}-${nonce}`;
}

export function uploadPrefix(projectId: string, assetId: string): string {
  return `projects/${projectId}/uploads/${assetId}/`;
}
