import { handle, routes } from "@/lib/http/handler";
import { ensureLensesEndpoint } from "@/lib/lenses/endpoints";
import { ensureLenses } from "@/lib/lenses/lenses";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  PUT: handle(ensureLensesEndpoint, ({ params, body }) => ensureLenses(params.projectId, body.lenses)),
});
