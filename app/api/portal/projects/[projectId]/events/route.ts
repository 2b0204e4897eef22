import { readInbox } from "@/lib/events/inbox";
import { handle, routes } from "@/lib/http/handler";
import { portalInboxEndpoint } from "@/lib/portal/events-endpoints";

const PAGE_SIZE = 25;

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(portalInboxEndpoint, ({ params, query }) =>
    readInbox(params.projectId, query.cursor, query.limit ?? PAGE_SIZE, { types: query.type, severity: query.severity, unread: query.unread }),
  ),
});
