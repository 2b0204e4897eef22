import { handle, routes } from "@/lib/http/handler";
import { portalLensList } from "@/lib/portal/lenses";
import { portalListLensesEndpoint } from "@/lib/portal/lenses-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(portalListLensesEndpoint, ({ params }) => portalLensList(params.projectId)),
});
