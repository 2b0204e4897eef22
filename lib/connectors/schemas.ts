import { z } from "zod";
import { atLeastOneOf, NOT_BLANK, storableTextCheck, text, uuid, webUrl } from "@/lib/core/schemas";
import { EVENT_TYPE_NAMES } from "@/lib/events/catalogue";
import { connectorUrlProblem, MAX_CONNECTOR_URL_LENGTH } from "./url-policy";

/** Request and response schemas of the Connectors API (lib/connectors/endpoints.ts). */

export const CONNECTOR_TYPES = ["webhook", "slack", "email"] as const;
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed", "cancelled"] as const;
export const MAX_RECIPIENTS = 10;

export const connectorType = z.enum(CONNECTOR_TYPES);

export const connectorName = text().min(1).max(100).regex(NOT_BLANK, "must not be blank");

export const connectorUrl = webUrl()
  .max(MAX_CONNECTOR_URL_LENGTH)
  .superRefine((value, ctx) => {
    const problem = connectorUrlProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem, input: value });
  })
  .describe("http: or https: URL without credentials, at most 2048 characters");

export const recipients = z
  .array(z.email().check(storableTextCheck).max(254))
  .min(1)
  .max(MAX_RECIPIENTS)
  .describe(`1 to ${MAX_RECIPIENTS} email addresses; repeats (in any letter case) are kept once`);

export const eventTypes = z
  .array(z.enum(EVENT_TYPE_NAMES))
  .max(100)
  .describe("Event types to deliver; repeats are kept once; absent or empty means every type");

export const createConnectorBody = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("webhook"), name: connectorName, url: connectorUrl, eventTypes: eventTypes.optional() }),
  z.strictObject({ type: z.literal("slack"), name: connectorName, url: connectorUrl.describe("The Slack incoming-webhook URL"), eventTypes: eventTypes.optional() }),
  z.strictObject({ type: z.literal("email"), name: connectorName, recipients, eventTypes: eventTypes.optional() }),
]);
export type CreateConnectorBody = z.infer<typeof createConnectorBody>;

export const updateConnectorBody = atLeastOneOf(
  z.strictObject({
    type: connectorType.optional().describe("The type cannot change: only the connector's own type is accepted"),
    name: connectorName.optional(),
    url: connectorUrl.optional().describe("Webhook and Slack connectors only"),
    recipients: recipients.optional().describe("Email connectors only"),
    eventTypes: eventTypes.optional(),
  }),
  ["name", "url", "recipients", "eventTypes"],
);
export type UpdateConnectorBody = z.infer<typeof updateConnectorBody>;

const pageIndex = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0);
const pageSize = z.coerce.number().int().min(1).max(100).default(20);

export const listConnectorsQuery = z.strictObject({ pageIndex, pageSize });
export type ListConnectorsQuery = z.infer<typeof listConnectorsQuery>;

export const listDeliveriesQuery = z.strictObject({
  pageIndex,
  pageSize,
  status: z.enum(DELIVERY_STATUSES).optional(),
  eventId: uuid.optional().describe("Only deliveries of this event"),
});
export type ListDeliveriesQuery = z.infer<typeof listDeliveriesQuery>;

const ms = z.number().int();

export const connectorSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    type: connectorType,
    name: z.string(),
    url: z
      .string()
      .nullable()
      .describe("Null for email. A Slack URL is a credential: reads show it masked (scheme, host, first path segment, then …)"),
    recipients: z.array(z.string()).describe("Empty unless email"),
    eventTypes: z.array(z.string()).describe("Empty means every type"),
    enabled: z.boolean(),
    disabledAt: ms.nullable(),
    disabledReason: z.string().nullable(),
    consecutiveFailures: z.number().int(),
    failingSince: ms.nullable(),
    lastError: z.string().nullable(),
    lastSuccessAt: ms.nullable(),
    lastFailureAt: ms.nullable(),
    previousSecretExpiresAt: ms.nullable().describe("Until when the secret before the last rotation still signs; null when none does"),
    createdAt: ms,
    updatedAt: ms,
  })
  .meta({ id: "Connector" });

export const connectorWithSecretSchema = connectorSchema
  .extend({ secret: z.string().describe("Standard Webhooks signing secret (whsec_ + base64); shown on creation and rotation only") })
  .meta({ id: "ConnectorWithSecret" });

export type ApiConnector = z.output<typeof connectorSchema>;
export type ApiConnectorWithSecret = z.output<typeof connectorWithSecretSchema>;

export const connectorPageSchema = z.object({ items: z.array(connectorSchema), total: z.number().int(), hasMore: z.boolean() });

export const deliveryAttemptSchema = z.object({
  attempt: z.number().int(),
  startedAt: ms,
  latencyMs: z.number().int(),
  statusCode: z.number().int().nullable(),
  error: z.string().nullable(),
  responseExcerpt: z.string().nullable(),
});

export const deliverySchema = z
  .object({
    id: z.string(),
    connectorId: z.string(),
    eventId: z.string().nullable().describe("Null for a test message"),
    eventType: z.string().nullable().describe("Null for a test message"),
    replayOf: z.string().nullable().describe("The delivery this one replays"),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    nextAttemptAt: ms.nullable(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    createdAt: ms,
    updatedAt: ms,
    finishedAt: ms.nullable(),
    log: z.array(deliveryAttemptSchema).describe("Every attempt, oldest first"),
  })
  .meta({ id: "ConnectorDelivery" });

export type ApiDelivery = z.output<typeof deliverySchema>;

export const deliveryPageSchema = z.object({ items: z.array(deliverySchema), total: z.number().int(), hasMore: z.boolean() });
