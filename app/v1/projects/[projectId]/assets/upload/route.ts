import { uploadRawAsset } from "@/lib/assets/create";
import { uploadAssetEndpoint } from "@/lib/assets/endpoints";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(uploadAssetEndpoint, ({ params, query, headers, body, ctx }) =>
    uploadRawAsset({ projectId: params.projectId, ownerUserId: ctx.apiKey.ownerUserId }, query, { body, headers }),
  ),
});
