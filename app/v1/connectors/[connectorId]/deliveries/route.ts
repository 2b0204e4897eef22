import { requireConnector } from "@/lib/connectors/connectors";
import { listDeliveries } from "@/lib/connectors/deliveries";
import { listConnectorDeliveriesEndpoint } from "@/lib/connectors/endpoints";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(listConnectorDeliveriesEndpoint, async ({ params, query, ctx }) =>
    listDeliveries(await requireConnector(ctx.apiKey, params.connectorId), query),
  ),
});
