import { handle, routes } from "@/lib/http/handler";
import { portalUsageEndpoint } from "@/lib/portal/project-endpoints";
import { portalUsage } from "@/lib/portal/usage";
import { DEFAULT_USAGE_WINDOW } from "@/lib/usage/usage-types";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(portalUsageEndpoint, ({ params, query }) => portalUsage(params.projectId, query.days ?? DEFAULT_USAGE_WINDOW)),
});
