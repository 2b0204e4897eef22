import { eventFeedEndpoint } from "@/lib/events/endpoints";
import { readEventFeed } from "@/lib/events/feed";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(eventFeedEndpoint, ({ params, query }) =>
    readEventFeed(params.projectId, query.after, query.limit, { types: query.type, severity: query.severity, unread: query.unread }),
  ),
});
