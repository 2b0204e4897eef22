import { createFolder, listFolders } from "@/lib/folders/folders";
import { handle, routes } from "@/lib/http/handler";
import { portalFoldersEndpoint } from "@/lib/portal/endpoints";
import { portalCreateFolderEndpoint } from "@/lib/portal/folders-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(portalFoldersEndpoint, async ({ params }) => ({
    folders: (await listFolders(params.projectId)).folders.map((f) => ({ id: f.id, name: f.name, parentId: f.parentId })),
  })),
  POST: handle(portalCreateFolderEndpoint, ({ params, body }) => createFolder(params.projectId, body)),
});
