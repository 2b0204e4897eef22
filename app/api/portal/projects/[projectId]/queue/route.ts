import { handle, routes } from "@/lib/http/handler";
import { portalQueueEndpoint } from "@/lib/portal/endpoints";
import { reviewQueuePage } from "@/lib/portal/queue";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(portalQueueEndpoint, ({ params, query }) => reviewQueuePage(params.projectId, query)),
});
