import { deleteAsset, deleteAssetContent } from "@/lib/assets/delete";
import { moveAsset, updateAsset } from "@/lib/assets/update";
import { requireFolderInProject } from "@/lib/folders/lookup";
import { db } from "@/lib/db/client";
import type { BatchOperation, Prisma } from "@/lib/db/generated/client";
import { ApiError } from "@/lib/core/errors";
import { prismaRunner } from "@/lib/db/sql";
import { enqueueJobs, kickOutbox, type JobMessage } from "@/lib/jobs/outbox";
import { retryAsset } from "@/lib/assets/processing/retry";
import { reviewAsset, type ReviewActor, type ReviewDecision } from "@/lib/assets/review";
import type { ApiBatch, BatchItem, BatchOperationName, CreateBatchBody } from "./schemas";

/**
 * Batch operations: the request is validated and stored with every item `queued`; the
 * run-asset-batch function applies the operation asset by asset (one memoized step each, so a crash
 * never applies an item twice) and records each outcome in `items`.
 */
export const BATCH_REQUESTED_EVENT = "sieve/asset-batch.requested";

export function serializeBatch(row: BatchOperation): ApiBatch {
  const items = row.items as BatchItem[];
  const count = (status: BatchItem["status"]) => items.filter((i) => i.status === status).length;
  return {
    id: row.id,
    projectId: row.projectId,
    operation: row.operation as BatchOperationName,
    params: row.params as Record<string, unknown>,
    status: row.status as ApiBatch["status"],
    items,
    counts: { queued: count("queued"), succeeded: count("succeeded"), failed: count("failed") },
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
    finishedAt: row.finishedAt?.getTime() ?? null,
  };
}

/** `reviewer`: who decides, for the `review` operation (the key's reviewer or the portal user). */
export async function createBatch(projectId: string, body: CreateBatchBody, reviewer?: ReviewActor): Promise<ApiBatch> {
  const { operation, assetIds, ...rest } = body;
  if (operation === "review" && !reviewer) throw new Error("A review batch needs its reviewer");
  const params = operation === "review" ? { ...rest, reviewer } : rest;
  if (body.operation === "move" && body.folderId) await requireFolderInProject(projectId, body.folderId);
  const items: BatchItem[] = assetIds.map((assetId) => ({ assetId: assetId.toLowerCase(), status: "queued", code: null, message: null }));
  // The batch and its job commit together (the job outbox); the relay hands the job over after commit.
  const row = await db().$transaction(async (tx) => {
    const created = await tx.batchOperation.create({
      data: { projectId, operation, params: params as Prisma.InputJsonValue, items: items as unknown as Prisma.InputJsonValue },
    });
    await enqueueJobs(prismaRunner(tx), [batchRequest(created.id)]);
    return created;
  });
  void kickOutbox();
  return serializeBatch(row);
}

function batchRequest(batchId: string): JobMessage {
  return { id: `sieve-batch-${batchId}`, name: BATCH_REQUESTED_EVENT, data: { batchId } };
}

export async function getBatch(projectId: string, batchId: string): Promise<ApiBatch> {
  const row = await db().batchOperation.findFirst({ where: { id: batchId, projectId } });
  if (!row) throw new ApiError("batch/not-found");
  return serializeBatch(row);
}

/** How many assets the batch names (0 when it does not exist). */
export async function batchSize(batchId: string): Promise<number> {
  const batch = await db().batchOperation.findUnique({ where: { id: batchId }, select: { items: true } });
  return batch ? (batch.items as unknown[]).length : 0;
}

/** Applies the batch's operation to one asset; returns its outcome (never throws an ApiError). */
export async function runBatchItem(batchId: string, index: number): Promise<BatchItem> {
  const batch = await db().batchOperation.findUniqueOrThrow({ where: { id: batchId } });
  const item = (batch.items as BatchItem[])[index]!;
  if (item.status !== "queued") return item;
  let outcome: BatchItem;
  try {
    await applyOperation(batch, item.assetId);
    outcome = { ...item, status: "succeeded" };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error; // infrastructure trouble: the step retries
    outcome = { ...item, status: "failed", code: error.code, message: error.message };
  }
  await db().$executeRaw`
    UPDATE batch_operations SET items = jsonb_set(items, ARRAY[${String(index)}], ${JSON.stringify(outcome)}::jsonb),
           status = 'running', updated_at = now()
     WHERE id = ${batchId}::uuid`;
  return outcome;
}

async function applyOperation(batch: BatchOperation, assetId: string): Promise<void> {
  const asset = await db().asset.findFirst({ where: { id: assetId, projectId: batch.projectId } });
  if (!asset) throw new ApiError("asset/not-found");
  const params = batch.params as {
    folderId?: string | null;
    visibility?: "public" | "private" | null;
    decision?: ReviewDecision;
    note?: string;
    reviewer?: ReviewActor;
  };
  switch (batch.operation as BatchOperationName) {
    case "move":
      await moveAsset(asset, params.folderId ?? null);
      return;
    case "delete":
      await deleteAsset(asset);
      return;
    case "delete-content":
      await deleteAssetContent(asset);
      return;
    case "retry":
      await retryAsset(asset, true);
      return;
    case "set-visibility":
      await updateAsset(asset, { visibility: params.visibility ?? null });
      return;
    case "review":
      await reviewAsset(asset, { decision: params.decision!, note: params.note ?? null, actor: params.reviewer! });
      return;
  }
}

export async function finishBatch(batchId: string): Promise<void> {
  await db().batchOperation.update({ where: { id: batchId }, data: { status: "completed", finishedAt: new Date() } });
}
