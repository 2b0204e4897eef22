import { deleteFolder, renameFolder, requireFolder } from "@/lib/folders/folders";
import { handle, routes } from "@/lib/http/handler";
import { portalDeleteFolderEndpoint, portalRenameFolderEndpoint } from "@/lib/portal/folders-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  PATCH: handle(portalRenameFolderEndpoint, async ({ params, body, ctx }) => renameFolder(await requireFolder(ctx.member, params.folderId), body.name)),
  DELETE: handle(portalDeleteFolderEndpoint, async ({ params, ctx }) => deleteFolder(await requireFolder(ctx.member, params.folderId))),
});
