import { uploadRawAsset } from "@/lib/assets/create";
import { uploadAssetEndpoint } from "@/lib/assets/endpoints";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE } = routes({
  POST: handle(uploadAssetEndpoint, ({ params, query, body, ctx }) =>
    uploadRawAsset(params.projectId, query, { ...body, headers: ctx.request.headers }),
  ),
});
