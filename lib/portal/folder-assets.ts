import { requireAsset } from "@/lib/assets/lookup";
import { listAssets } from "@/lib/assets/queries";
import { moveAsset } from "@/lib/assets/update";
import type { ProjectScope } from "@/lib/auth/authorize";
import { isApiError } from "@/lib/core/errors";
import { requireFolder } from "@/lib/folders/folders";
import type { FolderAssetsQuery } from "@/lib/portal/folders-endpoints";
import type { FolderAssetPage, MoveAssetsResult } from "@/lib/portal/types";

/** Inside a quoted RSQL value, `\`, `"` and `*` taken literally (a bare `*` is a wildcard). */
const literal = (value: string) => value.replace(/[\\"*]/g, (c) => `\\${c}`);

/** The API list's RSQL filter for the page's fields (docs/filter-grammar.md). */
export function folderAssetsFilter(query: Pick<FolderAssetsQuery, "folderId" | "type" | "status" | "name">): string {
  const parts = [query.folderId === "root" ? "folderId==null" : `folderId==${query.folderId}`];
  if (query.type) parts.push(`type==${query.type}`);
  if (query.status) parts.push(`status==${query.status}`);
  const name = query.name?.trim();
  // Contains, case-insensitive (the API's name matching).
  if (name) parts.push(`name=="*${literal(name)}*"`);
  return parts.join(";");
}

/**
 * The assets directly in one folder (uploads only: extracted children stay with their parent), through
 * the API's list so filters, sorting and paging mean the same as GET /v1/projects/:id/assets/page.
 */
export async function listFolderAssets(scope: ProjectScope, query: FolderAssetsQuery): Promise<FolderAssetPage> {
  if (query.folderId !== "root") await requireFolder(scope, query.folderId);
  const page = await listAssets(scope.projectId, { pageIndex: query.pageIndex, pageSize: query.pageSize, sort: query.sort, filter: folderAssetsFilter(query) });
  return {
    items: page.items.map((a) => ({ id: a.id, name: a.name, type: a.type, status: a.status, sizeInBytes: a.sizeInBytes, createdAt: a.createdAt, folderId: a.folderId })),
    total: page.total,
    hasMore: page.hasMore,
  };
}

/**
 * Moves each asset with the API's move (lib/assets/update.ts): one refusal (a safety hold, an asset
 * deleted meanwhile) does not stop the others; each is reported with its code and message.
 */
export async function moveAssets(scope: ProjectScope, folderId: string | null, assetIds: readonly string[]): Promise<MoveAssetsResult> {
  if (folderId !== null) await requireFolder(scope, folderId);
  const result: MoveAssetsResult = { moved: [], failed: [] };
  for (const assetId of assetIds) {
    try {
      await moveAsset(await requireAsset(scope, assetId), folderId);
      result.moved.push(assetId);
    } catch (error) {
      if (!isApiError(error)) throw error;
      result.failed.push({ assetId, code: error.code, message: error.message });
    }
  }
  return result;
}
