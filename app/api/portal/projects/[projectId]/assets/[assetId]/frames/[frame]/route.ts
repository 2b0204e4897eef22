import { toWebResponse } from "@/lib/cdn/adapters";
import { serveFrameForReview } from "@/lib/cdn/review-media";
import { handle, routes } from "@/lib/http/handler";
import { portalFrameEndpoint } from "@/lib/portal/endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(portalFrameEndpoint, async ({ params }) => toWebResponse(await serveFrameForReview(params.projectId, params.assetId, params.frame))),
});
