import { deleteAssetContent } from "@/lib/assets/delete";
import { deleteContentEndpoint } from "@/lib/assets/endpoints";
import { requireAsset } from "@/lib/assets/lookup";
import { serializeAsset } from "@/lib/assets/serialize";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  DELETE: handle(deleteContentEndpoint, async ({ params, ctx }) =>
    serializeAsset(await deleteAssetContent(await requireAsset(ctx.apiKey, params.assetId))),
  ),
});
