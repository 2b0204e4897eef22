import { createBatch, getBatch } from "@/lib/assets/batch/batch";
import { reviewAsset, type ReviewActor, type ReviewDecision } from "@/lib/assets/review";
import type { ProjectMemberActor } from "@/lib/auth/authorize";
import { ApiError } from "@/lib/core/errors";
import { db } from "@/lib/db/client";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import { assetEventHistory } from "@/lib/events/history";
import { isInQueue, keepContentByDefault, queueItem } from "@/lib/portal/queue";
import type { AssetDetail, PortalEvent, QueueItem, ReviewBatch } from "@/lib/portal/types";

/**
 * Decisions and the asset page for the portal, on the same domain functions as the API
 * (lib/assets/review.ts, the batch runner). The reviewer is the signed-in member.
 */
export function memberReviewer(member: ProjectMemberActor): ReviewActor {
  return { userId: member.userId, name: member.name, confirmsAlerts: true };
}

/** The asset, if it belongs to the member's project (404 otherwise, as for a missing one). */
export async function projectAsset(projectId: string, assetId: string): Promise<AssetRow> {
  const row = await db().asset.findFirst({ where: { id: assetId, projectId } });
  if (!row) throw new ApiError("asset/not-found");
  return row;
}

/**
 * One decision, as the API's review decision; approving an asset that was approved with an alert
 * confirms it (it leaves the queue; nothing else changes), alone or in bulk.
 */
export async function decide(member: ProjectMemberActor, assetId: string, input: { decision: ReviewDecision; note?: string }): Promise<{ item: QueueItem; inQueue: boolean }> {
  const asset = await projectAsset(member.projectId, assetId);
  const updated = await reviewAsset(asset, { decision: input.decision, note: input.note ?? null, actor: memberReviewer(member) });
  return { item: queueItem(updated, await keepContentByDefault(member.projectId)), inQueue: isInQueue(updated) };
}

export async function decideInBulk(member: ProjectMemberActor, input: { decision: ReviewDecision; note?: string; assetIds: string[] }): Promise<ReviewBatch> {
  const batch = await createBatch(member.projectId, { operation: "review", ...input }, memberReviewer(member));
  return reviewBatch(batch);
}

export async function bulkProgress(projectId: string, batchId: string): Promise<ReviewBatch> {
  const batch = await getBatch(projectId, batchId);
  if (batch.operation !== "review") throw new ApiError("batch/not-found");
  return reviewBatch(batch);
}

function reviewBatch(batch: Awaited<ReturnType<typeof getBatch>>): ReviewBatch {
  return { id: batch.id, status: batch.status, items: batch.items, counts: batch.counts };
}

export async function assetDetail(projectId: string, assetId: string): Promise<AssetDetail> {
  const asset = await projectAsset(projectId, assetId);
  const [children, events, folder, keep] = await Promise.all([
    db().asset.findMany({ where: { parentId: asset.id }, orderBy: [{ createdAt: "asc" }, { id: "asc" }], take: 100 }),
    assetEventHistory(projectId, asset.id),
    asset.folderId ? db().folder.findUnique({ where: { id: asset.folderId }, select: { id: true, name: true } }) : null,
    keepContentByDefault(projectId),
  ]);
  return {
    item: queueItem(asset, keep),
    inQueue: isInQueue(asset),
    children: children.map((child) => queueItem(child, keep)),
    events: events.map(
      (e): PortalEvent => ({ id: e.id, type: e.type, title: e.title, description: e.description, severity: e.severity, createdAt: e.createdAt, facts: e.facts as PortalEvent["facts"] }),
    ),
    folder,
    frameUrls: frameUrls(asset),
  };
}

/** Frames are kept with the preview, for retained videos (lib/moderation/pipeline/analyze.ts). */
function frameUrls(asset: AssetRow): string[] {
  const sampled = (asset.report as { media?: { sampledFrames?: number } } | null)?.media?.sampledFrames ?? 0;
  if (asset.type !== "video" || asset.previewImage === null || asset.storageDeletedAt !== null) return [];
  return Array.from({ length: sampled }, (_, i) => `/api/portal/projects/${asset.projectId}/assets/${asset.id}/frames/${i}`);
}
