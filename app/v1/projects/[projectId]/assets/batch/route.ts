import { createBatch } from "@/lib/assets/batch/batch";
import { createBatchEndpoint } from "@/lib/assets/batch/endpoints";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  POST: handle(createBatchEndpoint, ({ params, body }) => createBatch(params.projectId, body)),
});
