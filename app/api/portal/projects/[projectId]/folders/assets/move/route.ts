import { handle, routes } from "@/lib/http/handler";
import { moveAssets } from "@/lib/portal/folder-assets";
import { portalMoveAssetsEndpoint } from "@/lib/portal/folders-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(portalMoveAssetsEndpoint, ({ body, ctx }) => moveAssets(ctx.member, body.folderId, body.assetIds)),
});
