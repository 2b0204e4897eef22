import { reviewAssetEndpoint } from "@/lib/assets/endpoints";
import { requireAsset } from "@/lib/assets/lookup";
import { apiKeyReviewer, reviewAsset } from "@/lib/assets/review";
import { serializeAsset } from "@/lib/assets/serialize";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(reviewAssetEndpoint, async ({ params, body, ctx }) => {
    const asset = await requireAsset(ctx.apiKey, params.assetId);
    const actor = apiKeyReviewer(ctx.apiKey);
    return serializeAsset(await reviewAsset(asset, { decision: body.decision, note: body.note, actor }));
  }),
});
