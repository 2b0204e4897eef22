import { handle, routes } from "@/lib/http/handler";
import { portalReviewBatchEndpoint } from "@/lib/portal/endpoints";
import { bulkProgress } from "@/lib/portal/review";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(portalReviewBatchEndpoint, ({ params }) => bulkProgress(params.projectId, params.batchId)),
});
