import { requireConnector } from "@/lib/connectors/connectors";
import { testConnector } from "@/lib/connectors/deliveries";
import { testConnectorEndpoint } from "@/lib/connectors/endpoints";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(testConnectorEndpoint, async ({ params, ctx }) => testConnector(await requireConnector(ctx.apiKey, params.connectorId))),
});
