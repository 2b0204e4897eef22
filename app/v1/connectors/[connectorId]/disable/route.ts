import { disableConnector, requireConnector } from "@/lib/connectors/connectors";
import { disableConnectorEndpoint } from "@/lib/connectors/endpoints";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(disableConnectorEndpoint, async ({ params, ctx }) =>
    disableConnector(await requireConnector(ctx.apiKey, params.connectorId), { apiKey: ctx.apiKey }),
  ),
});
