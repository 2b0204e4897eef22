import { setEventsRead } from "@/lib/events/read-state";
import { handle, routes } from "@/lib/http/handler";
import { portalMarkEventsEndpoint } from "@/lib/portal/events-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(portalMarkEventsEndpoint, ({ params, body }) => setEventsRead(params.projectId, body.eventIds, body.read)),
});
