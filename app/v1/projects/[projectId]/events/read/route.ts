import { markEventsReadEndpoint } from "@/lib/events/endpoints";
import { setEventsRead } from "@/lib/events/read-state";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(markEventsReadEndpoint, ({ params, body }) => setEventsRead(params.projectId, body.eventIds, body.read)),
});
