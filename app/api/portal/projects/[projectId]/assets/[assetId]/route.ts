import { handle, routes } from "@/lib/http/handler";
import { portalAssetEndpoint } from "@/lib/portal/endpoints";
import { assetDetail } from "@/lib/portal/review";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(portalAssetEndpoint, ({ params }) => assetDetail(params.projectId, params.assetId)),
});
