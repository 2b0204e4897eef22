import { handle, routes } from "@/lib/http/handler";
import { listFolderAssets } from "@/lib/portal/folder-assets";
import { portalFolderAssetsEndpoint } from "@/lib/portal/folders-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(portalFolderAssetsEndpoint, ({ query, ctx }) => listFolderAssets(ctx.member, query)),
});
