import { moveFolder, requireFolder } from "@/lib/folders/folders";
import { handle, routes } from "@/lib/http/handler";
import { portalMoveFolderEndpoint } from "@/lib/portal/folders-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(portalMoveFolderEndpoint, async ({ params, body, ctx }) => moveFolder(await requireFolder(ctx.member, params.folderId), body.parentId)),
});
