import { inngest } from "@/inngest/client";
import { deleteAsset, deleteAssetContent } from "@/lib/assets/delete";
import { moveAsset, updateAsset } from "@/lib/assets/update";
import { requireFolderInProject } from "@/lib/folders/lookup";
import { db } from "@/lib/db/client";
import type { BatchOperation, Prisma } from "@/lib/db/generated/client";
import { ApiError } from "@/lib/core/errors";
import { retryAsset } from "@/lib/moderation/pipeline/retry";
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

export async function createBatch(projectId: string, body: CreateBatchBody): Promise<ApiBatch> {
  const { operation, assetIds, ...params } = body;
  if (body.operation === "move" && body.folderId) await requireFolderInProject(projectId, body.folderId);
  const items: BatchItem[] = assetIds.map((assetId) => ({ assetId: assetId.toLowerCase(), status: "queued", code: null, message: null }));
  const row = await db().batchOperation.create({
    data: { projectId, operation, params: params as Prisma.InputJsonValue, items: items as unknown as Prisma.InputJsonValue },
  });
  // A lost send is not fatal: the batch stays queued and the maintenance loop re-sends it.
  await sendBatch(row.id).catch((error: Error) => console.error(`[sieve] batch ${row.id} not handed over yet: ${error.message}`));
  return serializeBatch(row);
}

export async function sendBatch(batchId: string): Promise<void> {
  await inngest.send({ id: `sieve-batch-${batchId}`, name: BATCH_REQUESTED_EVENT, data: { batchId } });
}

export async function getBatch(projectId: string, batchId: string): Promise<ApiBatch> {
  const row = await db().batchOperation.findFirst({ where: { id: batchId, projectId } });
  if (!row) throw new ApiError("batch/not-found");
  return serializeBatch(row);
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
  const params = batch.params as { folderId?: string | null; visibility?: "public" | "private" | null };
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
  }
}

export async function finishBatch(batchId: string): Promise<void> {
  await db().batchOperation.update({ where: { id: batchId }, data: { status: "completed", finishedAt: new Date() } });
}

/** Batches whose send was lost (still queued after a minute) are handed over again. */
export async function resendStaleBatches(): Promise<number> {
  const stale = await db().batchOperation.findMany({
    where: { status: "queued", createdAt: { lt: new Date(Date.now() - 60_000) } },
    select: { id: true },
    take: 100,
  });
  for (const { id } of stale) await sendBatch(id);
  return stale.length;
}
