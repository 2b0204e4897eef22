import type { ErrorCode } from "@/lib/core/errors";
import { projectParams, uuid } from "@/lib/core/schemas";
import { createConnectorBody, listConnectorsQuery, listDeliveriesQuery, updateConnectorBody } from "@/lib/connectors/schemas";
import { defineEndpoint, JSON_BODY_ERRORS } from "@/lib/http/endpoint";
import { SESSION_ERRORS } from "@/lib/portal/endpoints";

/**
 * The connectors page's JSON routes (/api/portal/projects/{projectId}/connectors/...): the /v1
 * Connectors API's bodies and rules (lib/connectors), with the portal session. Reading needs
 * connectors:read (members have it), every change connectors:write (admins).
 */
const connectorParams = projectParams.extend({ connectorId: uuid });
const deliveryParams = connectorParams.extend({ deliveryId: uuid });
const base = { tag: "Portal", auth: "session" as const, response: { description: "See lib/portal/types.ts" } };
const CONNECTOR_ERRORS: ErrorCode[] = [...SESSION_ERRORS, "connector/not-found", "auth/project-mismatch"];
const read = { ...base, permission: "connectors:read" as const };
const write = { ...base, permission: "connectors:write" as const };

export const portalListConnectorsEndpoint = defineEndpoint({
  ...read,
  operationId: "portalListConnectors",
  method: "GET",
  path: "/projects/{projectId}/connectors",
  summary: "The project's connectors, and whether email connectors can be made",
  params: projectParams,
  query: listConnectorsQuery,
  errors: [...SESSION_ERRORS, "request/validation-failed"],
});

export const portalCreateConnectorEndpoint = defineEndpoint({
  ...write,
  operationId: "portalCreateConnector",
  method: "POST",
  path: "/projects/{projectId}/connectors",
  summary: "Create a connector; the answer shows its signing secret, once",
  params: projectParams,
  body: createConnectorBody,
  errors: [...SESSION_ERRORS, ...JSON_BODY_ERRORS, "connector/url-not-allowed", "connector/email-not-configured"],
});

export const portalUpdateConnectorEndpoint = defineEndpoint({
  ...write,
  operationId: "portalUpdateConnector",
  method: "PATCH",
  path: "/projects/{projectId}/connectors/{connectorId}",
  summary: "Change a connector's name, URL, recipients or event types",
  params: connectorParams,
  body: updateConnectorBody,
  errors: [...CONNECTOR_ERRORS, ...JSON_BODY_ERRORS, "connector/url-not-allowed"],
});

export const portalDeleteConnectorEndpoint = defineEndpoint({
  ...write,
  operationId: "portalDeleteConnector",
  method: "DELETE",
  path: "/projects/{projectId}/connectors/{connectorId}",
  summary: "Delete a connector and its deliveries",
  params: connectorParams,
  errors: CONNECTOR_ERRORS,
});

/** POST actions on one connector without a body: rotate-secret, enable, disable, test. */
const connectorAction = (operationId: string, path: string, summary: string) =>
  defineEndpoint({ ...write, operationId, method: "POST", path: `/projects/{projectId}/connectors/{connectorId}/${path}`, summary, params: connectorParams, errors: CONNECTOR_ERRORS });

export const portalRotateSecretEndpoint = connectorAction("portalRotateConnectorSecret", "rotate-secret", "A new signing secret, shown once");
export const portalEnableConnectorEndpoint = connectorAction("portalEnableConnector", "enable", "Turn a connector back on");
export const portalDisableConnectorEndpoint = connectorAction("portalDisableConnector", "disable", "Turn a connector off, in the member's name");
export const portalTestConnectorEndpoint = connectorAction("portalTestConnector", "test", "Send a test message now; answers its delivery");

export const portalListDeliveriesEndpoint = defineEndpoint({
  ...read,
  operationId: "portalListConnectorDeliveries",
  method: "GET",
  path: "/projects/{projectId}/connectors/{connectorId}/deliveries",
  summary: "A connector's deliveries with every attempt, newest first",
  params: connectorParams,
  query: listDeliveriesQuery,
  errors: [...CONNECTOR_ERRORS, "request/validation-failed"],
});

export const portalReplayDeliveryEndpoint = defineEndpoint({
  ...write,
  operationId: "portalReplayConnectorDelivery",
  method: "POST",
  path: "/projects/{projectId}/connectors/{connectorId}/deliveries/{deliveryId}/replay",
  summary: "Deliver the same event again, as a new delivery",
  params: deliveryParams,
  response: { status: 202, description: "The new, pending delivery" },
  errors: [...CONNECTOR_ERRORS, "request/validation-failed", "delivery/not-found", "connector/disabled"],
});

