import { disableConnector, requireConnector } from "@/lib/connectors/connectors";
import { handle, routes } from "@/lib/http/handler";
import { portalDisableConnectorEndpoint } from "@/lib/portal/connectors-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(portalDisableConnectorEndpoint, async ({ params, ctx }) =>
    disableConnector(await requireConnector(ctx.member, params.connectorId), { memberName: ctx.member.name }),
  ),
});
