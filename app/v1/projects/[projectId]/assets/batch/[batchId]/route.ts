import { getBatch } from "@/lib/assets/batch/batch";
import { getBatchEndpoint } from "@/lib/assets/batch/endpoints";
import { handle, routes } from "@/lib/http/handler";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routes({
  GET: handle(getBatchEndpoint, ({ params }) => getBatch(params.projectId, params.batchId)),
});
