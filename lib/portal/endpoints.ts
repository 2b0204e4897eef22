import { z } from "zod";
import { ASSET_TYPES } from "@/lib/assets/schemas";
import { MAX_BATCH_ASSETS } from "@/lib/assets/batch/schemas";
import { REVIEW_NOTE_MAX_LENGTH } from "@/lib/assets/review";
import type { ErrorCode } from "@/lib/core/errors";
import { projectParams, text, uuid } from "@/lib/core/schemas";
import { defineEndpoint, JSON_BODY_ERRORS } from "@/lib/http/endpoint";
import { CATEGORIES, LIKELIHOODS } from "@/lib/moderation/report";
import { preferencesPatch } from "@/lib/portal/preferences";

/**
 * The portal's JSON routes (/api/portal/...): the same wrapper as the API (handle()), with the
 * portal session instead of a key. Not part of the public API document; the browser is the client.
 */
export const SESSION_ERRORS: ErrorCode[] = ["auth/not-signed-in", "auth/cross-site-request", "project/not-found", "auth/insufficient-permissions", "rate-limit/exceeded"];
const assetParams = projectParams.extend({ assetId: uuid });
const isoDate = z.string().refine((v) => /^\d{4}-\d{2}-\d{2}/.test(v) && !Number.isNaN(Date.parse(v)), "must be an ISO 8601 date or date-time");

export const queueQuery = z.strictObject({
  order: z.enum(["newest", "oldest"]).optional(),
  type: z.enum(ASSET_TYPES).optional(),
  category: z.enum(CATEGORIES).optional(),
  likelihood: z.enum(LIKELIHOODS).optional(),
  folderId: z.union([z.literal("root"), uuid]).optional(),
  reason: z.enum(["rejected", "error", "alerted"]).optional(),
  from: isoDate.optional(),
  to: isoDate.optional(),
  cursor: text().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

export const reviewBody = z.strictObject({
  decision: z.enum(["approve", "reject"]),
  note: text().max(REVIEW_NOTE_MAX_LENGTH).optional(),
});

export const bulkReviewBody = reviewBody.extend({
  assetIds: z
    .array(uuid)
    .min(1)
    .max(MAX_BATCH_ASSETS)
    .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, "must not repeat an asset id"),
});

const base = { tag: "Portal", auth: "session" as const, response: { description: "See lib/portal/types.ts" } };

export const portalMeEndpoint = defineEndpoint({ ...base, operationId: "portalMe", method: "GET", path: "/me", summary: "The signed-in user", errors: SESSION_ERRORS });
export const portalPreferencesEndpoint = defineEndpoint({
  ...base,
  operationId: "portalPreferences",
  method: "PUT",
  path: "/me/preferences",
  summary: "Update review preferences",
  body: preferencesPatch,
  errors: [...SESSION_ERRORS, ...JSON_BODY_ERRORS],
});
export const portalQueueEndpoint = defineEndpoint({
  ...base,
  operationId: "portalQueue",
  method: "GET",
  path: "/projects/{projectId}/queue",
  summary: "The review queue",
  permission: "assets:read",
  params: projectParams,
  query: queueQuery,
  errors: [...SESSION_ERRORS, "request/validation-failed"],
});
export const portalFoldersEndpoint = defineEndpoint({
  ...base,
  operationId: "portalFolders",
  method: "GET",
  path: "/projects/{projectId}/folders",
  summary: "The project's folders (queue filter)",
  permission: "assets:read",
  params: projectParams,
  errors: SESSION_ERRORS,
});
export const portalAssetEndpoint = defineEndpoint({
  ...base,
  operationId: "portalAsset",
  method: "GET",
  path: "/projects/{projectId}/assets/{assetId}",
  summary: "An asset with its children and history",
  permission: "assets:read",
  params: assetParams,
  errors: [...SESSION_ERRORS, "asset/not-found"],
});
export const portalMediaEndpoint = defineEndpoint({
  ...base,
  operationId: "portalMedia",
  method: "GET",
  path: "/projects/{projectId}/assets/{assetId}/media/{resource}",
  summary: "An asset's content or preview for review, whatever its status",
  permission: "assets:download",
  params: assetParams.extend({ resource: z.enum(["content", "preview"]) }),
  errors: [...SESSION_ERRORS, "asset/not-found", "asset/no-preview", "asset/safety-held"],
});
export const portalFrameEndpoint = defineEndpoint({
  ...base,
  operationId: "portalFrame",
  method: "GET",
  path: "/projects/{projectId}/assets/{assetId}/frames/{frame}",
  summary: "A video's sampled frame (the report's frame segments, in order), for review",
  permission: "assets:download",
  params: assetParams.extend({ frame: z.coerce.number().int().min(0).max(999) }),
  errors: [...SESSION_ERRORS, "asset/not-found", "asset/safety-held"],
});
export const portalReviewEndpoint = defineEndpoint({
  ...base,
  operationId: "portalReview",
  method: "POST",
  path: "/projects/{projectId}/assets/{assetId}/review",
  summary: "Approve or reject one asset",
  permission: "assets:review",
  params: assetParams,
  body: reviewBody,
  errors: [...SESSION_ERRORS, ...JSON_BODY_ERRORS, "asset/not-found", "asset/invalid-transition", "asset/safety-held"],
});
export const portalBulkReviewEndpoint = defineEndpoint({
  ...base,
  operationId: "portalBulkReview",
  method: "POST",
  path: "/projects/{projectId}/review-batches",
  summary: "Approve or reject up to 100 assets (a batch)",
  permission: "assets:review",
  params: projectParams,
  body: bulkReviewBody,
  response: { status: 202, description: "The queued batch" },
  errors: [...SESSION_ERRORS, ...JSON_BODY_ERRORS],
});
export const portalReviewBatchEndpoint = defineEndpoint({
  ...base,
  operationId: "portalReviewBatch",
  method: "GET",
  path: "/projects/{projectId}/review-batches/{batchId}",
  summary: "A bulk decision's progress",
  permission: "assets:read",
  params: projectParams.extend({ batchId: uuid }),
  errors: [...SESSION_ERRORS, "batch/not-found"],
});
