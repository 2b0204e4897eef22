import { createConnector, listConnectors } from "@/lib/connectors/connectors";
import { createConnectorEndpoint, listConnectorsEndpoint } from "@/lib/connectors/endpoints";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(listConnectorsEndpoint, ({ params, query }) => listConnectors(params.projectId, query)),
  POST: handle(createConnectorEndpoint, ({ params, body }) => createConnector(params.projectId, body)),
});
