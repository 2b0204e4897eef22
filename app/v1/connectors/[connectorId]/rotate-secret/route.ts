import { requireConnector, rotateSecret } from "@/lib/connectors/connectors";
import { rotateConnectorSecretEndpoint } from "@/lib/connectors/endpoints";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(rotateConnectorSecretEndpoint, async ({ params, ctx }) => rotateSecret(await requireConnector(ctx.apiKey, params.connectorId))),
});
