import { z } from "zod";
import { REVIEW_NOTE_MAX_LENGTH } from "@/lib/assets/review";
import { uuid, visibility } from "@/lib/assets/schemas";
import { text } from "@/lib/core/schemas";

/** POST /projects/:projectId/assets/batch — one operation on up to MAX_BATCH_ASSETS assets. */
export const MAX_BATCH_ASSETS = 100;
export const BATCH_OPERATIONS = ["move", "delete", "delete-content", "retry", "set-visibility", "review"] as const;
export type BatchOperationName = (typeof BATCH_OPERATIONS)[number];

const assetIds = z
  .array(uuid)
  .min(1)
  .max(MAX_BATCH_ASSETS)
  .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, "must not repeat an asset id")
  // The document's form of the rule (it cannot say "in any letter case").
  .meta({ uniqueItems: true, description: `The assets, 1 to ${MAX_BATCH_ASSETS}, each once (in any letter case)` });

export const createBatchBody = z.discriminatedUnion("operation", [
  z.strictObject({ operation: z.literal("move"), assetIds, folderId: uuid.nullable().describe("Target folder; null moves to the project root") }),
  z.strictObject({ operation: z.literal("delete"), assetIds }),
  z.strictObject({ operation: z.literal("delete-content"), assetIds }),
  z.strictObject({ operation: z.literal("retry"), assetIds }),
  z.strictObject({ operation: z.literal("set-visibility"), assetIds, visibility }),
  z.strictObject({
    operation: z.literal("review"),
    assetIds,
    decision: z.enum(["approve", "reject"]).describe("The same decision as POST /assets/{assetId}/review, for each asset"),
    note: text().max(REVIEW_NOTE_MAX_LENGTH).optional().describe("The reviewer's note (rejection note for reject)"),
  }),
]);
export type CreateBatchBody = z.infer<typeof createBatchBody>;

export const BATCH_ITEM_STATUSES = ["queued", "succeeded", "failed"] as const;
export const batchItemSchema = z.object({
  assetId: z.string(),
  status: z.enum(BATCH_ITEM_STATUSES),
  code: z.string().nullable().describe("Error code when failed (the same codes the single-asset endpoint returns)"),
  message: z.string().nullable(),
});
export type BatchItem = z.infer<typeof batchItemSchema>;

export const batchSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    operation: z.enum(BATCH_OPERATIONS),
    params: z.record(z.string(), z.unknown()).describe("Operation parameters (folderId, visibility, decision, note, reviewer)"),
    status: z.enum(["queued", "running", "completed"]),
    items: z.array(batchItemSchema),
    counts: z.object({ queued: z.number().int(), succeeded: z.number().int(), failed: z.number().int() }),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
    finishedAt: z.number().int().nullable(),
  })
  .meta({ id: "BatchOperation" });
export type ApiBatch = z.infer<typeof batchSchema>;
