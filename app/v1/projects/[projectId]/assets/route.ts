import { createAsset } from "@/lib/assets/create";
import { createAssetEndpoint } from "@/lib/assets/endpoints";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE } = routes({
  POST: handle(createAssetEndpoint, ({ params, query, body }) => createAsset(params.projectId, body, query.queue ?? false)),
});
