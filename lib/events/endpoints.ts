import { z } from "zod";
import { projectParams, text, uuid } from "@/lib/core/schemas";
import { EVENT_TYPE_NAMES, isEventType, type EventType } from "@/lib/events/catalogue";
import { eventFeedSchema, eventSchema } from "@/lib/events/schemas";
import { AUTH_ERRORS, JSON_BODY_ERRORS, defineEndpoint } from "@/lib/http/endpoint";

/** `type=asset.flagged,asset.failed`: one or more known event types, comma-separated. */
export const eventTypeList = text()
  .max(1000)
  .transform((value, ctx) => {
    const types = value.split(",").map((t) => t.trim());
    const unknown = types.filter((t) => !isEventType(t));
    if (unknown.length === 0) return [...new Set(types)] as EventType[];
    const names = unknown.map((t) => (t === "" ? "(empty)" : JSON.stringify(t.slice(0, 60)))).join(", ");
    ctx.addIssue({ code: "custom", message: `unknown event type ${names}; known: ${EVENT_TYPE_NAMES.join(", ")}`, input: value });
    return z.NEVER;
  });

const unreadQuery = z.enum(["true", "false"]).transform((v) => v === "true");

export const eventFeedEndpoint = defineEndpoint({
  operationId: "listEvents",
  method: "GET",
  path: "/projects/{projectId}/events",
  summary: "Events feed (cursor)",
  description:
    "Without `after`: no events and a cursor for the current time. With `after`: events after the cursor, oldest " +
    "first; repeat at once with the returned cursor while hasMore is true. `after=djEuMC4w` (position 0) reads from the " +
    "beginning. The filters `type`, `severity` and `unread` apply within the cursor order; a filtered page that is not " +
    "followed by more matches returns a cursor past every event it examined.",
  tag: "Events",
  auth: "apiKey",
  permission: "events:read",
  params: projectParams,
  query: z.strictObject({
    after: text().max(200).optional().describe("Cursor returned by a previous call"),
    limit: z.coerce.number().int().min(1).max(100).describe("Events per page, 1 to 100"),
    type: eventTypeList.optional().describe("Only these event types (comma-separated)"),
    severity: z.enum(["low", "high"]).optional().describe("Only events of this severity"),
    unread: unreadQuery.optional().describe("true: only unread events; false: only read ones"),
  }),
  response: {
    description: "A page of events",
    schema: eventFeedSchema,
  },
  errors: [...AUTH_ERRORS, "project/not-found", "events/invalid-cursor", "request/validation-failed"],
});

const eventParams = z.object({ eventId: uuid });

function readStateEndpoint(read: boolean) {
  return defineEndpoint({
    operationId: read ? "markEventRead" : "markEventUnread",
    method: "POST",
    path: `/events/{eventId}/${read ? "read" : "unread"}`,
    summary: read ? "Mark an event read" : "Mark an event unread",
    description: read
      ? "Sets `readAt` to now (also when it was read already) and bumps `updatedAt`."
      : "Sets `readAt` to null and bumps `updatedAt`.",
    tag: "Events",
    auth: "apiKey",
    permission: "events:write",
    params: eventParams,
    response: { description: "The event", schema: eventSchema },
    errors: [...AUTH_ERRORS, "event/not-found"],
  });
}

export const markEventReadEndpoint = readStateEndpoint(true);
export const markEventUnreadEndpoint = readStateEndpoint(false);

export const markEventsReadEndpoint = defineEndpoint({
  operationId: "markEventsRead",
  method: "POST",
  path: "/projects/{projectId}/events/read",
  summary: "Mark several events read or unread",
  description:
    "Ids of unknown events and of other projects' events are ignored; events already in the wanted state keep their " +
    "`readAt`. `updated` counts the events whose state changed.",
  tag: "Events",
  auth: "apiKey",
  permission: "events:write",
  params: projectParams,
  body: z.strictObject({
    eventIds: z.array(uuid).min(1).max(100).describe("1 to 100 event ids"),
    read: z.boolean().describe("true marks read, false unread"),
  }),
  response: { description: "How many events changed state", schema: z.object({ updated: z.number().int() }) },
  errors: [...AUTH_ERRORS, ...JSON_BODY_ERRORS, "project/not-found"],
});

export const unreadCountEndpoint = defineEndpoint({
  operationId: "countUnreadEvents",
  method: "GET",
  path: "/projects/{projectId}/events/unread-count",
  summary: "Count unread events",
  tag: "Events",
  auth: "apiKey",
  permission: "events:read",
  params: projectParams,
  response: {
    description: "Unread events, all and of severity high",
    schema: z.object({ unread: z.number().int(), unreadHigh: z.number().int() }),
  },
  errors: [...AUTH_ERRORS, "project/not-found"],
});
