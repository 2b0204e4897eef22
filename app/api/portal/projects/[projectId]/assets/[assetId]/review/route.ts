import { handle, routes } from "@/lib/http/handler";
import { portalReviewEndpoint } from "@/lib/portal/endpoints";
import { decide } from "@/lib/portal/review";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(portalReviewEndpoint, ({ params, body, ctx }) => decide(ctx.member, params.assetId, body)),
});
