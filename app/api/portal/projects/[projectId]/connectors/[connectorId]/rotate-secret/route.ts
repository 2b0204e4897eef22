import { requireConnector, rotateSecret } from "@/lib/connectors/connectors";
import { handle, routes } from "@/lib/http/handler";
import { portalRotateSecretEndpoint } from "@/lib/portal/connectors-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(portalRotateSecretEndpoint, async ({ params, ctx }) => rotateSecret(await requireConnector(ctx.member, params.connectorId))),
});
