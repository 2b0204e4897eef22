import { z } from "zod";
import {
  assetPageSchema,
  assetSchema,
  childrenQuery,
  createAssetBody,
  listAssetsQuery,
  moveAssetBody,
  multipartStartQuery,
  partBody,
  partQuery,
  patchAssetBody,
  queueQuery,
  rawBytesHeaders,
  rawUploadHeaders,
  rawUploadQuery,
  uuid,
} from "@/lib/assets/schemas";
import { searchAssetsQuery, searchPageSchema } from "@/lib/assets/search/search";
import { AUTH_ERRORS, IDEMPOTENCY_ERRORS, JSON_BODY_ERRORS, defineEndpoint, rawOrJson } from "@/lib/http/endpoint";
import type { ErrorCode } from "@/lib/core/errors";
import { projectParams, text } from "@/lib/core/schemas";
import { REVIEW_NOTE_MAX_LENGTH } from "@/lib/assets/review";

const UPLOAD: ErrorCode[] = [
  "upload/allowance-exhausted",
  "upload/too-large",
  "upload/image-requires-multipart",
  "upload/empty-content",
  "upload/invalid-content",
];
const assetParams = z.object({ assetId: uuid });

export const createAssetEndpoint = defineEndpoint({
  operationId: "createAsset",
  method: "POST",
  path: "/projects/{projectId}/assets",
  summary: "Create an asset (inline content, first multipart part, or remote URL)",
  tag: "Assets",
  auth: "apiKey",
  permission: "assets:write",
  params: projectParams,
  query: queueQuery,
  body: createAssetBody,
  idempotent: true,
  response: { description: "The new asset", schema: assetSchema },
  errors: [
    ...AUTH_ERRORS, ...JSON_BODY_ERRORS, ...IDEMPOTENCY_ERRORS, ...UPLOAD,
    "project/not-found", "folder/not-found", "asset/duplicate-external-id",
    "asset/url-not-allowed", "asset/url-fetch-failed", "upload/size-mismatch", "upload/part-out-of-order",
  ],
});

export const uploadAssetEndpoint = defineEndpoint({
  operationId: "uploadAsset",
  method: "POST",
  path: "/projects/{projectId}/assets/upload",
  summary: "Upload a file as raw bytes",
  tag: "Assets",
  auth: "apiKey",
  permission: "assets:write",
  params: projectParams,
  query: rawUploadQuery,
  headers: rawUploadHeaders("content"),
  body: "raw",
  rawContentDescription: "The file's bytes",
  idempotent: true,
  response: { description: "The new asset", schema: assetSchema },
  errors: [...AUTH_ERRORS, ...IDEMPOTENCY_ERRORS, ...UPLOAD, "request/validation-failed", "upload/missing-header", "project/not-found", "folder/not-found", "asset/duplicate-external-id"],
});

export const startMultipartEndpoint = defineEndpoint({
  operationId: "startMultipartUpload",
  method: "POST",
  path: "/projects/{projectId}/assets/multipart-upload",
  summary: "Start a multipart upload with the raw bytes of the first part",
  tag: "Assets",
  auth: "apiKey",
  permission: "assets:write",
  params: projectParams,
  query: multipartStartQuery,
  headers: rawUploadHeaders("part"),
  body: "raw",
  rawContentDescription: "The bytes of part 1",
  idempotent: true,
  response: { description: "The asset (status uploading, or pending when isFinal=true)", schema: assetSchema },
  errors: [
    ...AUTH_ERRORS, ...IDEMPOTENCY_ERRORS, ...UPLOAD, "request/validation-failed", "upload/missing-header", "upload/size-mismatch",
    "upload/part-out-of-order", "project/not-found", "folder/not-found", "asset/duplicate-external-id",
  ],
});

export const uploadPartEndpoint = defineEndpoint({
  operationId: "uploadPart",
  method: "POST",
  path: "/assets/{assetId}/part",
  summary: "Upload the next part of a multipart upload (JSON `{part}` or raw bytes)",
  description:
    "Send either a JSON body `{part: {<content form>, type, partNumber, isFinal}}`, or the raw bytes with " +
    "`X-Service-Upload: part` and the query parameters `partNumber` and `isFinal`. Parts are sequential: " +
    "partNumber must be the next part, or a re-send of an earlier one (which replaces it).",
  tag: "Assets",
  auth: "apiKey",
  permission: "assets:write",
  params: assetParams,
  query: partQuery,
  body: rawOrJson({ json: partBody, rawHeaders: rawBytesHeaders("part") }),
  rawContentDescription: "application/json `{part}` or the part's raw bytes",
  idempotent: true,
  response: { description: "The asset after this part (decided or pending after the final part)", schema: assetSchema },
  errors: [
    ...AUTH_ERRORS, ...JSON_BODY_ERRORS, ...IDEMPOTENCY_ERRORS, "asset/not-found", "upload/missing-header", "upload/not-in-progress", "upload/expired",
    "upload/part-out-of-order", "upload/size-mismatch", "upload/too-large", "upload/empty-content",
    "upload/invalid-content", "upload/allowance-exhausted",
  ],
});

export const listAssetsEndpoint = defineEndpoint({
  operationId: "listAssets",
  method: "GET",
  path: "/projects/{projectId}/assets/page",
  summary: "Paginated asset list with an RSQL filter",
  tag: "Assets",
  auth: "apiKey",
  permission: "assets:read",
  params: projectParams,
  query: listAssetsQuery,
  response: { description: "A page of assets", schema: assetPageSchema },
  errors: [...AUTH_ERRORS, "request/validation-failed", "project/not-found"],
});

export const searchAssetsEndpoint = defineEndpoint({
  operationId: "searchAssets",
  method: "GET",
  path: "/projects/{projectId}/assets/search",
  summary: "Full-text search over names, tags, descriptions, metadata values and extracted text",
  description:
    "Matches keywords and natural-language descriptions (stemmed English and exact words) against name and tags, " +
    "description and model labels, metadata values and extracted text, in that order of weight. Results are " +
    "`{asset, rank}`, best first (rank, then newest, then id). Extracted children are included unless " +
    "`includeChildren=false`.",
  tag: "Assets",
  auth: "apiKey",
  permission: "assets:read",
  params: projectParams,
  query: searchAssetsQuery,
  response: { description: "A page of matches, best first", schema: searchPageSchema },
  errors: [...AUTH_ERRORS, "request/validation-failed", "project/not-found"],
});

export const getAssetEndpoint = defineEndpoint({
  operationId: "getAsset",
  method: "GET",
  path: "/assets/{assetId}",
  summary: "Get an asset",
  tag: "Assets",
  auth: "apiKey",
  permission: "assets:read",
  params: assetParams,
  response: { description: "The asset", schema: assetSchema },
  errors: [...AUTH_ERRORS, "asset/not-found"],
});

export const listChildrenEndpoint = defineEndpoint({
  operationId: "listAssetChildren",
  method: "GET",
  path: "/assets/{assetId}/children",
  summary: "List child assets (extracted from this asset)",
  tag: "Assets",
  auth: "apiKey",
  permission: "assets:read",
  params: assetParams,
  query: childrenQuery,
  response: { description: "A page of child assets", schema: assetPageSchema },
  errors: [...AUTH_ERRORS, "request/validation-failed", "asset/not-found"],
});

export const patchAssetEndpoint = defineEndpoint({
  operationId: "updateAsset",
  method: "PATCH",
  path: "/assets/{assetId}",
  summary: "Update an asset's descriptive fields",
  tag: "Assets",
  auth: "apiKey",
  permission: "assets:write",
  params: assetParams,
  body: patchAssetBody,
  response: { description: "The updated asset", schema: assetSchema },
  errors: [...AUTH_ERRORS, ...JSON_BODY_ERRORS, "asset/not-found", "asset/safety-held", "asset/duplicate-external-id", "asset/update-failed"],
});

export const moveAssetEndpoint = defineEndpoint({
  operationId: "moveAsset",
  method: "POST",
  path: "/assets/{assetId}/move",
  summary: "Move an asset into a folder or to the root",
  tag: "Assets",
  auth: "apiKey",
  permission: "assets:write",
  params: assetParams,
  body: moveAssetBody,
  response: { description: "The moved asset", schema: assetSchema },
  errors: [...AUTH_ERRORS, ...JSON_BODY_ERRORS, "asset/not-found", "folder/not-found", "asset/safety-held", "asset/update-failed"],
});

export const deleteContentEndpoint = defineEndpoint({
  operationId: "deleteAssetContent",
  method: "DELETE",
  path: "/assets/{assetId}/content",
  summary: "Remove stored content, including children's derived content; records and reports remain",
  tag: "Assets",
  auth: "apiKey",
  permission: "assets:write",
  params: assetParams,
  response: { description: "The asset with storageId null and storageDeletedAt set", schema: assetSchema },
  errors: [...AUTH_ERRORS, "asset/not-found", "asset/safety-held", "asset/invalid-state"],
});

export const deleteAssetEndpoint = defineEndpoint({
  operationId: "deleteAsset",
  method: "DELETE",
  path: "/assets/{assetId}",
  summary: "Delete an asset, its children and their stored content",
  tag: "Assets",
  auth: "apiKey",
  permission: "assets:write",
  params: assetParams,
  response: { description: "Empty object", schema: z.object({}).strict() },
  errors: [...AUTH_ERRORS, "asset/not-found", "asset/safety-held"],
});

export const retryAssetEndpoint = defineEndpoint({
  operationId: "retryAsset",
  method: "POST",
  path: "/assets/{assetId}/retry",
  summary: "Process an asset in status error again",
  description:
    "The asset returns to `pending` and is processed again. With `queue=false`, text and images wait for the new decision " +
    "(bounded like Create Asset); otherwise the response is the `pending` asset and the decision arrives as events. " +
    "Any status other than `error` gives 409 `asset/not-retryable`, as does an asset whose stored content was removed.",
  tag: "Assets",
  auth: "apiKey",
  permission: "assets:write",
  params: assetParams,
  query: queueQuery,
  response: { description: "The asset after the retry started (or decided, with queue=false)", schema: assetSchema },
  errors: [...AUTH_ERRORS, "request/validation-failed", "asset/not-found", "asset/safety-held", "asset/not-retryable"],
});

export const reviewAssetBody = z.strictObject({
  decision: z.enum(["approve", "reject"]).describe("approve: only from status rejected; reject: from any status but uploading"),
  note: text()
    .max(REVIEW_NOTE_MAX_LENGTH)
    .nullable()
    .optional()
    .describe(`Reason or remark (at most ${REVIEW_NOTE_MAX_LENGTH} characters); a rejection's rejectionNote`),
});

export const reviewAssetEndpoint = defineEndpoint({
  operationId: "reviewAsset",
  method: "POST",
  path: "/assets/{assetId}/review",
  summary: "Approve or reject an asset as a reviewer",
  description:
    "Approve sets status `approved` and clears `rejectionNote`; only a `rejected` asset can be approved. Reject sets status " +
    "`rejected` with `rejectionNote` = the note (default \"Rejected by a reviewer\"), from any status but `uploading`. Other " +
    "transitions get 409 `asset/invalid-transition`. Records `asset.approved` or `asset.rejected` (reviewer-user-id null, " +
    "reviewer-name the API key's name or prefix). The CDN stops serving a rejected asset at once.",
  tag: "Assets",
  auth: "apiKey",
  permission: "assets:review",
  params: assetParams,
  body: reviewAssetBody,
  idempotent: true,
  response: { description: "The asset after the decision", schema: assetSchema },
  errors: [...AUTH_ERRORS, ...JSON_BODY_ERRORS, ...IDEMPOTENCY_ERRORS, "asset/not-found", "asset/safety-held", "asset/invalid-transition"],
});
