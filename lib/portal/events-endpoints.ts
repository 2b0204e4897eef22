import { z } from "zod";
import { projectParams, text } from "@/lib/core/schemas";
import { eventTypeList, markEventsReadEndpoint } from "@/lib/events/endpoints";
import { defineEndpoint, JSON_BODY_ERRORS } from "@/lib/http/endpoint";
import { SESSION_ERRORS } from "@/lib/portal/endpoints";

/** The events inbox's routes (/api/portal/projects/:projectId/events/...): the /v1 filters and rules, for the session. */
const base = { tag: "Portal", auth: "session" as const, params: projectParams, response: { description: "See lib/portal/types.ts" } };

export const inboxQuery = z.strictObject({
  type: eventTypeList.optional(),
  severity: z.enum(["low", "high"]).optional(),
  unread: z.enum(["true", "false"]).transform((v) => v === "true").optional(),
  cursor: text().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

export const portalInboxEndpoint = defineEndpoint({
  ...base,
  operationId: "portalEventInbox",
  method: "GET",
  path: "/projects/{projectId}/events",
  summary: "The events inbox, newest first",
  permission: "events:read",
  query: inboxQuery,
  errors: [...SESSION_ERRORS, "request/validation-failed", "events/invalid-cursor"],
});

export const portalUnreadCountEndpoint = defineEndpoint({
  ...base,
  operationId: "portalUnreadEvents",
  method: "GET",
  path: "/projects/{projectId}/events/unread-count",
  summary: "Unread events (the navigation's count)",
  permission: "events:read",
  errors: SESSION_ERRORS,
});

export const portalMarkEventsEndpoint = defineEndpoint({
  ...base,
  operationId: "portalMarkEvents",
  method: "POST",
  path: "/projects/{projectId}/events/read",
  summary: "Mark one or several events read or unread",
  permission: "events:write",
  // The /v1 body: 1–100 ids (other projects' ids are ignored) and the wanted state.
  body: markEventsReadEndpoint.body,
  errors: [...SESSION_ERRORS, ...JSON_BODY_ERRORS],
});

export const portalMarkAllReadEndpoint = defineEndpoint({
  ...base,
  operationId: "portalMarkAllEventsRead",
  method: "POST",
  path: "/projects/{projectId}/events/read-all",
  summary: "Mark every unread event of the project read",
  permission: "events:write",
  // Empty, but JSON all the same: portal writes carry a JSON body (the cross-site defence).
  body: z.strictObject({}),
  errors: [...SESSION_ERRORS, ...JSON_BODY_ERRORS],
});
