import { uploadPart } from "@/lib/assets/create";
import { uploadPartEndpoint } from "@/lib/assets/endpoints";
import { requireAsset } from "@/lib/assets/lookup";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(uploadPartEndpoint, async ({ params, query, body, ctx }) =>
    uploadPart(await requireAsset(ctx.apiKey, params.assetId), query, body),
  ),
});
