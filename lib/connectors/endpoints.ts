import { z } from "zod";
import type { ErrorCode } from "@/lib/core/errors";
import { projectParams, uuid } from "@/lib/core/schemas";
import { AUTH_ERRORS, IDEMPOTENCY_ERRORS, JSON_BODY_ERRORS, defineEndpoint } from "@/lib/http/endpoint";
import {
  connectorPageSchema,
  connectorSchema,
  connectorWithSecretSchema,
  createConnectorBody,
  deliveryPageSchema,
  deliverySchema,
  listConnectorsQuery,
  listDeliveriesQuery,
  updateConnectorBody,
} from "./schemas";

const connectorParams = z.object({ connectorId: uuid });
const deliveryParams = z.object({ connectorId: uuid, deliveryId: uuid });
const TAG = "Connectors";
/** What every endpoint addressing a connector by its id may answer. */
const CONNECTOR_ERRORS: ErrorCode[] = [...AUTH_ERRORS, "connector/not-found"];

export const listConnectorsEndpoint = defineEndpoint({
  operationId: "listConnectors",
  method: "GET",
  path: "/projects/{projectId}/connectors",
  summary: "List the project's connectors",
  description: "Newest first. Secrets are never listed; Slack URLs are masked.",
  tag: TAG,
  auth: "apiKey",
  permission: "connectors:read",
  params: projectParams,
  query: listConnectorsQuery,
  response: { description: "A page of connectors", schema: connectorPageSchema },
  errors: [...AUTH_ERRORS, "request/validation-failed", "project/not-found"],
});

export const createConnectorEndpoint = defineEndpoint({
  operationId: "createConnector",
  method: "POST",
  path: "/projects/{projectId}/connectors",
  summary: "Create a connector (webhook, Slack or email)",
  description:
    "The response is the only one that shows the signing secret (until a rotation) and a Slack URL unmasked. " +
    "A URL whose host is a private, loopback or link-local address literal, or localhost, gives 422 `connector/url-not-allowed` " +
    "(unless the server allows private networks); an email connector without SMTP settings gives 422 `connector/email-not-configured`.",
  tag: TAG,
  auth: "apiKey",
  permission: "connectors:write",
  params: projectParams,
  body: createConnectorBody,
  idempotent: true,
  response: { description: "The new connector, with its secret", schema: connectorWithSecretSchema },
  errors: [
    ...AUTH_ERRORS,
    ...JSON_BODY_ERRORS,
    "project/not-found",
    "connector/url-not-allowed",
    "connector/email-not-configured",
    ...IDEMPOTENCY_ERRORS,
  ],
});

export const getConnectorEndpoint = defineEndpoint({
  operationId: "getConnector",
  method: "GET",
  path: "/connectors/{connectorId}",
  summary: "Get a connector",
  tag: TAG,
  auth: "apiKey",
  permission: "connectors:read",
  params: connectorParams,
  response: { description: "The connector", schema: connectorSchema },
  errors: CONNECTOR_ERRORS,
});

export const updateConnectorEndpoint = defineEndpoint({
  operationId: "updateConnector",
  method: "PATCH",
  path: "/connectors/{connectorId}",
  summary: "Change a connector's name, URL, recipients or event types",
  description: "The type cannot change (400). `url` is for webhook and Slack connectors, `recipients` for email ones.",
  tag: TAG,
  auth: "apiKey",
  permission: "connectors:write",
  params: connectorParams,
  body: updateConnectorBody,
  response: { description: "The connector", schema: connectorSchema },
  errors: [...CONNECTOR_ERRORS, ...JSON_BODY_ERRORS, "connector/url-not-allowed"],
});

export const deleteConnectorEndpoint = defineEndpoint({
  operationId: "deleteConnector",
  method: "DELETE",
  path: "/connectors/{connectorId}",
  summary: "Delete a connector and its deliveries",
  tag: TAG,
  auth: "apiKey",
  permission: "connectors:write",
  params: connectorParams,
  response: { description: "Empty object", schema: z.object({}).strict() },
  errors: CONNECTOR_ERRORS,
});

export const rotateConnectorSecretEndpoint = defineEndpoint({
  operationId: "rotateConnectorSecret",
  method: "POST",
  path: "/connectors/{connectorId}/rotate-secret",
  summary: "Replace the signing secret; the previous one keeps signing for a grace period",
  tag: TAG,
  auth: "apiKey",
  permission: "connectors:write",
  params: connectorParams,
  response: { description: "The connector with its new secret", schema: connectorWithSecretSchema },
  errors: CONNECTOR_ERRORS,
});

export const enableConnectorEndpoint = defineEndpoint({
  operationId: "enableConnector",
  method: "POST",
  path: "/connectors/{connectorId}/enable",
  summary: "Turn a connector on (and reset its run of failures)",
  tag: TAG,
  auth: "apiKey",
  permission: "connectors:write",
  params: connectorParams,
  response: { description: "The connector", schema: connectorSchema },
  errors: CONNECTOR_ERRORS,
});

export const disableConnectorEndpoint = defineEndpoint({
  operationId: "disableConnector",
  method: "POST",
  path: "/connectors/{connectorId}/disable",
  summary: "Turn a connector off",
  tag: TAG,
  auth: "apiKey",
  permission: "connectors:write",
  params: connectorParams,
  response: { description: "The connector", schema: connectorSchema },
  errors: CONNECTOR_ERRORS,
});

export const testConnectorEndpoint = defineEndpoint({
  operationId: "testConnector",
  method: "POST",
  path: "/connectors/{connectorId}/test",
  summary: "Send a test message now and answer with its delivery",
  description: "One attempt, made before the response (also for a connector that is off); the delivery is `succeeded` or `failed`.",
  tag: TAG,
  auth: "apiKey",
  permission: "connectors:write",
  params: connectorParams,
  response: { description: "The test message's delivery", schema: deliverySchema },
  errors: CONNECTOR_ERRORS,
});

export const listConnectorDeliveriesEndpoint = defineEndpoint({
  operationId: "listConnectorDeliveries",
  method: "GET",
  path: "/connectors/{connectorId}/deliveries",
  summary: "List a connector's deliveries, newest first",
  description: "Deliveries are kept `CONNECTOR_DELIVERY_RETENTION_DAYS` (default 30) days from their creation, then deleted with their attempts, unless still pending.",
  tag: TAG,
  auth: "apiKey",
  permission: "connectors:read",
  params: connectorParams,
  query: listDeliveriesQuery,
  response: { description: "A page of deliveries", schema: deliveryPageSchema },
  errors: [...CONNECTOR_ERRORS, "request/validation-failed"],
});

export const getConnectorDeliveryEndpoint = defineEndpoint({
  operationId: "getConnectorDelivery",
  method: "GET",
  path: "/connectors/{connectorId}/deliveries/{deliveryId}",
  summary: "Get one delivery with its attempts",
  tag: TAG,
  auth: "apiKey",
  permission: "connectors:read",
  params: deliveryParams,
  response: { description: "The delivery", schema: deliverySchema },
  errors: [...CONNECTOR_ERRORS, "delivery/not-found"],
});

export const replayConnectorDeliveryEndpoint = defineEndpoint({
  operationId: "replayConnectorDelivery",
  method: "POST",
  path: "/connectors/{connectorId}/deliveries/{deliveryId}/replay",
  summary: "Deliver the same event again, as a new delivery",
  description:
    "The new delivery (`replayOf` = this one) is queued and answered `pending`. A connector that is off gives 409 `connector/disabled`; " +
    "a test message cannot be replayed (400: send a new test).",
  tag: TAG,
  auth: "apiKey",
  permission: "connectors:write",
  params: deliveryParams,
  response: { status: 202, description: "The new, pending delivery", schema: deliverySchema },
  errors: [...CONNECTOR_ERRORS, "request/validation-failed", "delivery/not-found", "connector/disabled"],
});
