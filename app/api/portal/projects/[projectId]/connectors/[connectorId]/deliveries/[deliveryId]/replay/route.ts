import { requireConnector } from "@/lib/connectors/connectors";
import { replayDelivery, requireDelivery } from "@/lib/connectors/deliveries";
import { handle, routes } from "@/lib/http/handler";
import { portalReplayDeliveryEndpoint } from "@/lib/portal/connectors-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(portalReplayDeliveryEndpoint, async ({ params, ctx }) => {
    const connector = await requireConnector(ctx.member, params.connectorId);
    return replayDelivery(connector, await requireDelivery(connector, params.deliveryId));
  }),
});
