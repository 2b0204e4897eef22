import { createBatch } from "@/lib/assets/batch/batch";
import { createBatchEndpoint } from "@/lib/assets/batch/endpoints";
import { apiKeyReviewer } from "@/lib/assets/review";
import { assertPermission } from "@/lib/auth/authorize";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(createBatchEndpoint, async ({ params, body, ctx }) => {
    if (body.operation !== "review") return createBatch(params.projectId, body);
    assertPermission(ctx.apiKey, "assets:review");
    return createBatch(params.projectId, body, apiKeyReviewer(ctx.apiKey));
  }),
});
