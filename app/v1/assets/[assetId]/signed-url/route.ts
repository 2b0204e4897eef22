import { createSignedUrlEndpoint } from "@/lib/cdn/endpoints";
import { createSignedUrl } from "@/lib/cdn/signed-url";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(createSignedUrlEndpoint, ({ params, body, ctx }) => createSignedUrl(ctx.apiKey, params.assetId, body)),
});
