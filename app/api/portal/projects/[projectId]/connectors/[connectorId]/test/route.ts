import { requireConnector } from "@/lib/connectors/connectors";
import { testConnector } from "@/lib/connectors/deliveries";
import { handle, routes } from "@/lib/http/handler";
import { portalTestConnectorEndpoint } from "@/lib/portal/connectors-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(portalTestConnectorEndpoint, async ({ params, ctx }) => testConnector(await requireConnector(ctx.member, params.connectorId))),
});
