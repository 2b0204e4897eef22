import { requireConnector } from "@/lib/connectors/connectors";
import { requireDelivery } from "@/lib/connectors/deliveries";
import { getConnectorDeliveryEndpoint } from "@/lib/connectors/endpoints";
import { serializeDelivery } from "@/lib/connectors/serialize";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(getConnectorDeliveryEndpoint, async ({ params, ctx }) => {
    const connector = await requireConnector(ctx.apiKey, params.connectorId);
    return serializeDelivery(await requireDelivery(connector, params.deliveryId));
  }),
});
