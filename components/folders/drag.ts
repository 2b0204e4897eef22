/** Drag-and-drop payloads of the folders page (the keyboard path, "Move to…", does the same moves). */
export const ASSETS_TYPE = "application/x-sieve-assets";
export const FOLDER_TYPE = "application/x-sieve-folder";

export type Dropped = { kind: "assets"; assetIds: string[] } | { kind: "folder"; folderId: string };

export function readDrop(data: DataTransfer): Dropped | null {
  const assets = data.getData(ASSETS_TYPE);
  if (assets) {
    const assetIds: unknown = JSON.parse(assets);
    return Array.isArray(assetIds) ? { kind: "assets", assetIds: assetIds.map(String) } : null;
  }
  const folderId = data.getData(FOLDER_TYPE);
  return folderId ? { kind: "folder", folderId } : null;
}

/** Whether a drag carries something the page can drop (the data itself is readable only on drop). */
export const isOurDrag = (data: DataTransfer) => data.types.includes(ASSETS_TYPE) || data.types.includes(FOLDER_TYPE);
