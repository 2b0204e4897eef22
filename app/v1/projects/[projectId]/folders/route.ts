import { createFolderEndpoint, listFoldersEndpoint } from "@/lib/folders/endpoints";
import { createFolder, listFolders } from "@/lib/folders/folders";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(listFoldersEndpoint, ({ params }) => listFolders(params.projectId)),
  POST: handle(createFolderEndpoint, ({ params, body }) => createFolder(params.projectId, body)),
});
