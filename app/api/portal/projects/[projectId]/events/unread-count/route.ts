import { countUnread } from "@/lib/events/read-state";
import { handle, routes } from "@/lib/http/handler";
import { portalUnreadCountEndpoint } from "@/lib/portal/events-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(portalUnreadCountEndpoint, ({ params }) => countUnread(params.projectId)),
});
