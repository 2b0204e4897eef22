import { requireConnector } from "@/lib/connectors/connectors";
import { replayDelivery, requireDelivery } from "@/lib/connectors/deliveries";
import { replayConnectorDeliveryEndpoint } from "@/lib/connectors/endpoints";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(replayConnectorDeliveryEndpoint, async ({ params, ctx }) => {
    const connector = await requireConnector(ctx.apiKey, params.connectorId);
    return replayDelivery(connector, await requireDelivery(connector, params.deliveryId));
  }),
});
