import { z } from "zod";
import { ASSET_STATUSES, ASSET_TYPES, listAssetsQuery } from "@/lib/assets/schemas";
import { projectParams, text, uuid } from "@/lib/core/schemas";
import { createFolderBody, moveFolderBody, renameFolderBody } from "@/lib/folders/schemas";
import { defineEndpoint, JSON_BODY_ERRORS } from "@/lib/http/endpoint";
import { PORTAL_BASE, SESSION_ERRORS } from "@/lib/portal/endpoints";

/**
 * The folders page's routes (/api/portal/projects/:projectId/folders/...): the API's folder rules and
 * bodies (lib/folders), with the session instead of a key. Reading needs assets:read, changes assets:write.
 */
const folderParams = projectParams.extend({ folderId: uuid });
export const MAX_ASSETS_PER_MOVE = 100;

/**
 * The asset list of one folder: the filters of GET /v1/projects/:projectId/assets/page that a person
 * uses (type, status, name, sort, paging), as fields instead of an RSQL string.
 */
export const folderAssetsQuery = z.strictObject({
  folderId: z.union([z.literal("root"), uuid]),
  type: z.enum(ASSET_TYPES).optional(),
  status: z.enum(ASSET_STATUSES).optional(),
  name: text().max(200).optional().describe("Part of the name, case-insensitive"),
  sort: listAssetsQuery.shape.sort,
  pageIndex: listAssetsQuery.shape.pageIndex,
  pageSize: listAssetsQuery.shape.pageSize,
});
export type FolderAssetsQuery = z.output<typeof folderAssetsQuery>;

export const moveAssetsBody = z.strictObject({
  folderId: uuid.nullable(),
  assetIds: z
    .array(uuid)
    .min(1)
    .max(MAX_ASSETS_PER_MOVE)
    .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, "must not repeat an asset id"),
});

const write = { ...PORTAL_BASE, permission: "assets:write" as const };

export const portalCreateFolderEndpoint = defineEndpoint({
  ...write,
  operationId: "portalCreateFolder",
  method: "POST",
  path: "/projects/{projectId}/folders",
  summary: "Create a folder",
  params: projectParams,
  body: createFolderBody,
  errors: [...SESSION_ERRORS, ...JSON_BODY_ERRORS, "folder/not-found", "folder/duplicate-name"],
});
export const portalRenameFolderEndpoint = defineEndpoint({
  ...write,
  operationId: "portalRenameFolder",
  method: "PATCH",
  path: "/projects/{projectId}/folders/{folderId}",
  summary: "Rename a folder",
  params: folderParams,
  body: renameFolderBody,
  errors: [...SESSION_ERRORS, ...JSON_BODY_ERRORS, "folder/not-found", "folder/duplicate-name", "auth/project-mismatch"],
});
export const portalDeleteFolderEndpoint = defineEndpoint({
  ...write,
  operationId: "portalDeleteFolder",
  method: "DELETE",
  path: "/projects/{projectId}/folders/{folderId}",
  summary: "Delete an empty folder",
  params: folderParams,
  errors: [...SESSION_ERRORS, "folder/not-found", "folder/not-empty", "auth/project-mismatch"],
});
export const portalMoveFolderEndpoint = defineEndpoint({
  ...write,
  operationId: "portalMoveFolder",
  method: "POST",
  path: "/projects/{projectId}/folders/{folderId}/move",
  summary: "Move a folder under another folder, or to the root with parentId null",
  params: folderParams,
  body: moveFolderBody,
  errors: [...SESSION_ERRORS, ...JSON_BODY_ERRORS, "folder/not-found", "folder/duplicate-name", "folder/parent-cycle", "auth/project-mismatch"],
});
export const portalFolderAssetsEndpoint = defineEndpoint({
  ...PORTAL_BASE,
  operationId: "portalFolderAssets",
  method: "GET",
  path: "/projects/{projectId}/folders/assets",
  summary: "A page of the assets directly in one folder (or outside any folder: root)",
  permission: "assets:read",
  params: projectParams,
  query: folderAssetsQuery,
  errors: [...SESSION_ERRORS, "request/validation-failed", "folder/not-found", "auth/project-mismatch"],
});
export const portalMoveAssetsEndpoint = defineEndpoint({
  ...write,
  operationId: "portalMoveAssets",
  method: "POST",
  path: "/projects/{projectId}/folders/assets/move",
  summary: "Move up to 100 assets into a folder, or out of any folder with folderId null",
  params: projectParams,
  body: moveAssetsBody,
  errors: [...SESSION_ERRORS, ...JSON_BODY_ERRORS, "folder/not-found", "auth/project-mismatch"],
});
