import { enableConnector, requireConnector } from "@/lib/connectors/connectors";
import { handle, routes } from "@/lib/http/handler";
import { portalEnableConnectorEndpoint } from "@/lib/portal/connectors-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(portalEnableConnectorEndpoint, async ({ params, ctx }) => enableConnector(await requireConnector(ctx.member, params.connectorId))),
});
