import { listChildrenEndpoint } from "@/lib/assets/endpoints";
import { requireAsset } from "@/lib/assets/lookup";
import { listChildren } from "@/lib/assets/queries";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(listChildrenEndpoint, async ({ params, query, ctx }) => {
    const asset = await requireAsset(ctx.apiKey, params.assetId);
    return listChildren(asset.id, query.pageIndex, query.pageSize);
  }),
});
