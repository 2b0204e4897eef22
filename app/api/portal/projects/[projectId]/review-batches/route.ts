import { handle, routes } from "@/lib/http/handler";
import { portalBulkReviewEndpoint } from "@/lib/portal/endpoints";
import { decideInBulk } from "@/lib/portal/review";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(portalBulkReviewEndpoint, ({ body, ctx }) => decideInBulk(ctx.member, body)),
});
