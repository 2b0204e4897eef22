import { toWebResponse } from "@/lib/cdn/adapters";
import { serveForReview } from "@/lib/cdn/review-media";
import { handle, routes } from "@/lib/http/handler";
import { portalMediaEndpoint } from "@/lib/portal/endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(portalMediaEndpoint, async ({ params, ctx }) => {
    const request = ctx.request;
    const response = await serveForReview(
      { method: request.method, path: new URL(request.url).pathname, query: new URLSearchParams(), header: (name) => request.headers.get(name) ?? undefined, requestId: ctx.requestId },
      params.projectId,
      params.assetId,
      params.resource,
    );
    return toWebResponse(response);
  }),
});
