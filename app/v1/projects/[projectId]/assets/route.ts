import { createAsset } from "@/lib/assets/create";
import { createAssetEndpoint } from "@/lib/assets/endpoints";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(createAssetEndpoint, ({ params, query, body, ctx }) =>
    createAsset({ projectId: params.projectId, ownerUserId: ctx.apiKey.ownerUserId }, body, query.queue ?? false)),
});
