import { ApiError } from "@/lib/core/errors";
import { handle, routes } from "@/lib/http/handler";
import { ensureLens } from "@/lib/lenses/lenses";
import { portalEnsureLensEndpoint } from "@/lib/portal/lenses-endpoints";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  PUT: handle(portalEnsureLensEndpoint, ({ params, body }) => {
    if (body.identifier !== params.lensIdentifier) {
      throw new ApiError("request/validation-failed", `body.identifier "${body.identifier}" must equal the path's "${params.lensIdentifier}".`);
    }
    return ensureLens(params.projectId, body);
  }),
});
