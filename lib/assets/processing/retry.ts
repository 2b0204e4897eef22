import { assertNotHeld } from "@/lib/assets/lookup";
import { ApiError } from "@/lib/core/errors";
import { db } from "@/lib/db/client";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import { prismaRunner } from "@/lib/db/sql";
import { enqueueJobs } from "@/lib/jobs/outbox";
import { processAfterUpload } from "./dispatch";
import { processingRequest } from "./request";

/**
 * POST /assets/:id/retry — an asset in `error` goes back to `pending` in a new processing
 * generation (results of the failed generation can never be applied to it) and is processed again.
 * With queue=false, text and images wait for the new decision like an upload does.
 */
export async function retryAsset(asset: AssetRow, queued: boolean): Promise<AssetRow> {
  assertNotHeld(asset);
  if (asset.status !== "error") {
    throw new ApiError("asset/not-retryable", `The asset is ${asset.status}; only assets in status error can be retried.`);
  }
  if (!asset.storageId) {
    throw new ApiError("asset/not-retryable", "The asset's stored content was removed, so it cannot be processed again.");
  }
  const row = await db().$transaction(async (tx) => {
    const { count } = await tx.asset.updateMany({
      where: { id: asset.id, status: "error" },
      data: { status: "pending", processingGeneration: { increment: 1 }, queued, processingRequestedAt: null, reviewedAt: null },
    });
    if (count === 0) throw new ApiError("asset/not-retryable", "The asset left status error while the retry was requested.");
    const updated = await tx.asset.findUniqueOrThrow({ where: { id: asset.id } });
    await enqueueJobs(prismaRunner(tx), [processingRequest(updated)]);
    return updated;
  });
  return processAfterUpload(row);
}
