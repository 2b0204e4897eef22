import { z } from "zod";
import { uuid } from "@/lib/assets/schemas";
import { projectParams } from "@/lib/core/schemas";
import { AUTH_ERRORS, IDEMPOTENCY_ERRORS, JSON_BODY_ERRORS, defineEndpoint } from "@/lib/http/endpoint";
import { batchSchema, createBatchBody, MAX_BATCH_ASSETS } from "./schemas";

export const createBatchEndpoint = defineEndpoint({
  operationId: "createAssetBatch",
  method: "POST",
  path: "/projects/{projectId}/assets/batch",
  summary: "Queue a batch operation on up to 100 assets",
  description:
    `Operations: \`move\` (with \`folderId\`), \`delete\`, \`delete-content\`, \`retry\`, \`set-visibility\` (with \`visibility\`), ` +
    "`review` (with `decision` approve|reject and an optional `note`; needs `assets:review` as well, 403 otherwise; each item as " +
    "POST /assets/{assetId}/review, e.g. `asset/invalid-transition`), " +
    `on 1 to ${MAX_BATCH_ASSETS} assets of the project. The batch is queued and answered with status 202; each asset's outcome ` +
    "(`succeeded`, or `failed` with the error code the single-asset endpoint would give, e.g. `asset/not-found`, " +
    "`asset/safety-held`, `asset/not-retryable`) appears in `items` of GET …/assets/batch/{batchId}.",
  tag: "Assets",
  auth: "apiKey",
  permission: "assets:write",
  params: projectParams,
  body: createBatchBody,
  idempotent: true,
  response: { status: 202, description: "The queued batch", schema: batchSchema },
  errors: [...AUTH_ERRORS, ...JSON_BODY_ERRORS, ...IDEMPOTENCY_ERRORS, "project/not-found", "folder/not-found"],
});

export const getBatchEndpoint = defineEndpoint({
  operationId: "getAssetBatch",
  method: "GET",
  path: "/projects/{projectId}/assets/batch/{batchId}",
  summary: "Get a batch operation and each asset's outcome",
  tag: "Assets",
  auth: "apiKey",
  permission: "assets:read",
  params: z.object({ projectId: uuid, batchId: uuid }),
  response: { description: "The batch", schema: batchSchema },
  errors: [...AUTH_ERRORS, "project/not-found", "batch/not-found"],
});
