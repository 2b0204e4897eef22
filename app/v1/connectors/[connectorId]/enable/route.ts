import { enableConnector, requireConnector } from "@/lib/connectors/connectors";
import { enableConnectorEndpoint } from "@/lib/connectors/endpoints";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(enableConnectorEndpoint, async ({ params, ctx }) => enableConnector(await requireConnector(ctx.apiKey, params.connectorId))),
});
