import { z } from "zod";
import { text, uuid } from "@/lib/core/schemas";
import { AUTH_ERRORS, defineEndpoint } from "@/lib/http/endpoint";

const factSchema = z.object({ key: z.string(), value: z.unknown(), url: z.string().optional() });

export const eventSchema = z.object({
  id: z.string(),
  projectId: z.string(),
  userId: z.string().nullable(),
  type: z.string(),
  severity: z.enum(["low", "high"]),
  title: z.string(),
  description: z.string().nullable(),
  assetId: z.string().nullable(),
  asset: z
    .object({
      id: z.string(),
      externalId: z.string().nullable(),
      status: z.enum(["uploading", "pending", "approved", "rejected", "error"]),
      flagged: z.boolean().nullable(),
      moderationAction: z.enum(["ignore", "alert", "hide", "purge"]).nullable(),
    })
    .nullable(),
  facts: z.array(factSchema),
  notify: z.boolean().nullable(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  readAt: z.number().nullable(),
});

export const eventFeedEndpoint = defineEndpoint({
  operationId: "listEvents",
  method: "GET",
  path: "/projects/{projectId}/events",
  summary: "Events feed (cursor)",
  description:
    "Without `after`: no events and a cursor for the current time. With `after`: events after the cursor, oldest " +
    "first; repeat at once with the returned cursor while hasMore is true.",
  tag: "Events",
  auth: "apiKey",
  permission: "events:read",
  params: z.object({ projectId: uuid }),
  query: z.strictObject({
    after: text().max(200).optional().describe("Cursor returned by a previous call"),
    limit: z.coerce.number().int().min(1).max(100).describe("Events per page, 1 to 100"),
  }),
  response: {
    description: "A page of events",
    schema: z.object({ events: z.array(eventSchema), cursor: z.string(), hasMore: z.boolean() }),
  },
  errors: [...AUTH_ERRORS, "project/not-found", "events/invalid-cursor", "request/validation-failed"],
});
