import { startRawMultipartUpload } from "@/lib/assets/create";
import { startMultipartEndpoint } from "@/lib/assets/endpoints";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(startMultipartEndpoint, ({ params, query, headers, body, ctx }) =>
    startRawMultipartUpload({ projectId: params.projectId, ownerUserId: ctx.apiKey.ownerUserId }, query, { body, headers }),
  ),
});
