import { handle, routes } from "@/lib/http/handler";
import { ApiError } from "@/lib/core/errors";
import { ensureLensEndpoint } from "@/lib/lenses/endpoints";
import { ensureLens } from "@/lib/lenses/lenses";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  PUT: handle(ensureLensEndpoint, ({ params, body, ctx }) => {
    if (body.identifier !== params.lensIdentifier) {
      throw new ApiError("request/validation-failed", `body.identifier "${body.identifier}" must equal the path's "${params.lensIdentifier}".`);
    }
    return ensureLens(ctx.apiKey.projectId, body);
  }),
});
