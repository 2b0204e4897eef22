import { deleteFolderEndpoint, getFolderEndpoint, renameFolderEndpoint } from "@/lib/folders/endpoints";
import { deleteFolder, renameFolder, requireFolder, serializeFolder } from "@/lib/folders/folders";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(getFolderEndpoint, async ({ params, ctx }) => serializeFolder(await requireFolder(ctx.apiKey, params.folderId))),
  PATCH: handle(renameFolderEndpoint, async ({ params, body, ctx }) =>
    renameFolder(await requireFolder(ctx.apiKey, params.folderId), body.name),
  ),
  DELETE: handle(deleteFolderEndpoint, async ({ params, ctx }) => deleteFolder(await requireFolder(ctx.apiKey, params.folderId))),
});
