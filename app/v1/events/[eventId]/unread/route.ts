import { markEventUnreadEndpoint } from "@/lib/events/endpoints";
import { requireEvent, setEventRead } from "@/lib/events/read-state";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(markEventUnreadEndpoint, async ({ params, ctx }) => setEventRead(await requireEvent(ctx.apiKey, params.eventId), false)),
});
