import { deleteAsset } from "@/lib/assets/delete";
import { deleteAssetEndpoint, getAssetEndpoint, patchAssetEndpoint } from "@/lib/assets/endpoints";
import { requireAsset } from "@/lib/assets/lookup";
import { serializeAsset } from "@/lib/assets/serialize";
import { updateAsset } from "@/lib/assets/update";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(getAssetEndpoint, async ({ params, ctx }) => serializeAsset(await requireAsset(ctx.apiKey, params.assetId))),
  PATCH: handle(patchAssetEndpoint, async ({ params, body, ctx }) =>
    serializeAsset(await updateAsset(await requireAsset(ctx.apiKey, params.assetId), body)),
  ),
  DELETE: handle(deleteAssetEndpoint, async ({ params, ctx }) => {
    await deleteAsset(await requireAsset(ctx.apiKey, params.assetId));
    return {};
  }),
});
