import { listAssetsEndpoint } from "@/lib/assets/endpoints";
import { listAssets } from "@/lib/assets/queries";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(listAssetsEndpoint, ({ params, query }) => listAssets(params.projectId, query)),
});
