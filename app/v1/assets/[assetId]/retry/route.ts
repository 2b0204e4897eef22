import { retryAssetEndpoint } from "@/lib/assets/endpoints";
import { requireAsset } from "@/lib/assets/lookup";
import { serializeAsset } from "@/lib/assets/serialize";
import { handle, routes } from "@/lib/http/handler";
import { retryAsset } from "@/lib/assets/processing/retry";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(retryAssetEndpoint, async ({ params, query, ctx }) =>
    serializeAsset(await retryAsset(await requireAsset(ctx.apiKey, params.assetId), query.queue ?? false)),
  ),
});
