import { createConnector } from "@/lib/connectors/connectors";
import { handle, routes } from "@/lib/http/handler";
import { portalConnectorList } from "@/lib/portal/connectors";
import { portalCreateConnectorEndpoint, portalListConnectorsEndpoint } from "@/lib/portal/connectors-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(portalListConnectorsEndpoint, ({ params, query }) => portalConnectorList(params.projectId, query)),
  POST: handle(portalCreateConnectorEndpoint, ({ params, body }) => createConnector(params.projectId, body)),
});
