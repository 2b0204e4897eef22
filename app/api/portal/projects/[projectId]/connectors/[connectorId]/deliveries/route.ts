import { requireConnector } from "@/lib/connectors/connectors";
import { listDeliveries } from "@/lib/connectors/deliveries";
import { handle, routes } from "@/lib/http/handler";
import { portalListDeliveriesEndpoint } from "@/lib/portal/connectors-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(portalListDeliveriesEndpoint, async ({ params, query, ctx }) => listDeliveries(await requireConnector(ctx.member, params.connectorId), query)),
});
