import { deleteConnector, requireConnector, updateConnector } from "@/lib/connectors/connectors";
import { handle, routes } from "@/lib/http/handler";
import { portalDeleteConnectorEndpoint, portalUpdateConnectorEndpoint } from "@/lib/portal/connectors-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  PATCH: handle(portalUpdateConnectorEndpoint, async ({ params, body, ctx }) =>
    updateConnector(await requireConnector(ctx.member, params.connectorId), body),
  ),
  DELETE: handle(portalDeleteConnectorEndpoint, async ({ params, ctx }) => deleteConnector(await requireConnector(ctx.member, params.connectorId))),
});
