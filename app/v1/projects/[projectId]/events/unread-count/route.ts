import { unreadCountEndpoint } from "@/lib/events/endpoints";
import { countUnread } from "@/lib/events/read-state";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(unreadCountEndpoint, ({ params }) => countUnread(params.projectId)),
});
