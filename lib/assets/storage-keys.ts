/** Where asset bytes live in storage. `storageId` on an asset is the key of its content. */
export function assetContentKey(projectId: string, assetId: string): string {
  return `projects/${projectId}/assets/${assetId}/original`;
}

export function assetPrefix(projectId: string, assetId: string): string {
  return `projects/${projectId}/assets/${assetId}/`;
}

export function uploadPartKey(projectId: string, assetId: string, partNumber: number, nonce: string): string {
  return `projects/${projectId}/uploads/${assetId}/${partNumber}-${nonce}`;
}

export function uploadPrefix(projectId: string, assetId: string): string {
  return `projects/${projectId}/uploads/${assetId}/`;
}
