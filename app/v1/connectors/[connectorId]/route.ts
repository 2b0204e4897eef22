import { deleteConnector, requireConnector, updateConnector } from "@/lib/connectors/connectors";
import { deleteConnectorEndpoint, getConnectorEndpoint, updateConnectorEndpoint } from "@/lib/connectors/endpoints";
import { serializeConnector } from "@/lib/connectors/serialize";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(getConnectorEndpoint, async ({ params, ctx }) => serializeConnector(await requireConnector(ctx.apiKey, params.connectorId))),
  PATCH: handle(updateConnectorEndpoint, async ({ params, body, ctx }) =>
    updateConnector(await requireConnector(ctx.apiKey, params.connectorId), body),
  ),
  DELETE: handle(deleteConnectorEndpoint, async ({ params, ctx }) => deleteConnector(await requireConnector(ctx.apiKey, params.connectorId))),
});
