import { setAllEventsRead } from "@/lib/events/inbox";
import { handle, routes } from "@/lib/http/handler";
import { portalMarkAllReadEndpoint } from "@/lib/portal/events-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(portalMarkAllReadEndpoint, ({ params }) => setAllEventsRead(params.projectId)),
});
