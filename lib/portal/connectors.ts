import { listConnectors } from "@/lib/connectors/connectors";
import type { ListConnectorsQuery } from "@/lib/connectors/schemas";
import { config } from "@/lib/core/config";
import type { PortalConnectorList } from "@/lib/portal/types";

/**
 * The connectors page's list: the API's page plus whether the server can send email at all, so
 * the form says so before anyone fills in recipients (the API would answer 422
 * connector/email-not-configured).
 */
export async function portalConnectorList(projectId: string, query: ListConnectorsQuery): Promise<PortalConnectorList> {
  const page = await listConnectors(projectId, query);
  return { ...page, emailAvailable: Boolean(config().connectors.smtp.url) };
}
