import { moveFolderEndpoint } from "@/lib/folders/endpoints";
import { moveFolder, requireFolder } from "@/lib/folders/folders";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(moveFolderEndpoint, async ({ params, body, ctx }) =>
    moveFolder(await requireFolder(ctx.apiKey, params.folderId), body.parentId),
  ),
});
