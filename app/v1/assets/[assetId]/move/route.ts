import { moveAssetEndpoint } from "@/lib/assets/endpoints";
import { requireAsset } from "@/lib/assets/lookup";
import { serializeAsset } from "@/lib/assets/serialize";
import { moveAsset } from "@/lib/assets/update";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(moveAssetEndpoint, async ({ params, body, ctx }) =>
    serializeAsset(await moveAsset(await requireAsset(ctx.apiKey, params.assetId), body.folderId)),
  ),
});
