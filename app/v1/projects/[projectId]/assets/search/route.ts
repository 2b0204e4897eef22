import { searchAssetsEndpoint } from "@/lib/assets/endpoints";
import { searchAssets } from "@/lib/assets/search/search";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(searchAssetsEndpoint, ({ params, query }) => searchAssets(params.projectId, query)),
});
