import { z } from "zod";
import { uuid } from "@/lib/core/schemas";
import { createFolderBody, folderListSchema, folderSchema, moveFolderBody, renameFolderBody } from "@/lib/folders/schemas";
import { AUTH_ERRORS, IDEMPOTENCY_ERRORS, JSON_BODY_ERRORS, defineEndpoint } from "@/lib/http/endpoint";

const projectParams = z.object({ projectId: uuid });
const folderParams = z.object({ folderId: uuid });

export const listFoldersEndpoint = defineEndpoint({
  operationId: "listFolders",
  method: "GET",
  path: "/projects/{projectId}/folders",
  summary: "List the project's folders",
  tag: "Folders",
  auth: "apiKey",
  permission: "assets:read",
  params: projectParams,
  response: { description: "All folders of the project, oldest first", schema: folderListSchema },
  errors: [...AUTH_ERRORS, "project/not-found"],
});

export const createFolderEndpoint = defineEndpoint({
  operationId: "createFolder",
  method: "POST",
  path: "/projects/{projectId}/folders",
  summary: "Create a folder",
  tag: "Folders",
  auth: "apiKey",
  permission: "assets:write",
  params: projectParams,
  body: createFolderBody,
  idempotent: true,
  response: { description: "The new folder", schema: folderSchema },
  errors: [...AUTH_ERRORS, ...JSON_BODY_ERRORS, "project/not-found", "folder/not-found", "folder/duplicate-name", ...IDEMPOTENCY_ERRORS],
});

export const getFolderEndpoint = defineEndpoint({
  operationId: "getFolder",
  method: "GET",
  path: "/folders/{folderId}",
  summary: "Get a folder",
  tag: "Folders",
  auth: "apiKey",
  permission: "assets:read",
  params: folderParams,
  response: { description: "The folder", schema: folderSchema },
  errors: [...AUTH_ERRORS, "folder/not-found"],
});

export const renameFolderEndpoint = defineEndpoint({
  operationId: "renameFolder",
  method: "PATCH",
  path: "/folders/{folderId}",
  summary: "Rename a folder",
  tag: "Folders",
  auth: "apiKey",
  permission: "assets:write",
  params: folderParams,
  body: renameFolderBody,
  response: { description: "The folder", schema: folderSchema },
  errors: [...AUTH_ERRORS, ...JSON_BODY_ERRORS, "folder/not-found", "folder/duplicate-name"],
});

export const deleteFolderEndpoint = defineEndpoint({
  operationId: "deleteFolder",
  method: "DELETE",
  path: "/folders/{folderId}",
  summary: "Delete an empty folder",
  tag: "Folders",
  auth: "apiKey",
  permission: "assets:write",
  params: folderParams,
  response: { description: "Empty object", schema: z.object({}).strict() },
  errors: [...AUTH_ERRORS, "folder/not-found", "folder/not-empty"],
});

export const moveFolderEndpoint = defineEndpoint({
  operationId: "moveFolder",
  method: "POST",
  path: "/folders/{folderId}/move",
  summary: "Move a folder under another folder, or to the root with parentId null",
  tag: "Folders",
  auth: "apiKey",
  permission: "assets:write",
  params: folderParams,
  body: moveFolderBody,
  response: { description: "The moved folder", schema: folderSchema },
  errors: [...AUTH_ERRORS, ...JSON_BODY_ERRORS, "folder/not-found", "folder/duplicate-name", "folder/parent-cycle"],
});
