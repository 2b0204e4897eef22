import { ALERTED_WHERE, isAlerted } from "@/lib/assets/review";
import { dbAssetType, serializeAsset } from "@/lib/assets/serialize";
import { CDN_MOUNT } from "@/lib/cdn/adapters";
import { ApiError } from "@/lib/core/errors";
import { isUuid } from "@/lib/core/ids";
import { db } from "@/lib/db/client";
import type { Asset as AssetRow, Prisma } from "@/lib/db/generated/client";
import { CATEGORIES, LIKELIHOOD_BANDS, LIKELIHOODS, type Category, type Likelihood } from "@/lib/moderation/report";
import type { QueueItem, QueuePage, QueueQuery, QueueReason } from "@/lib/portal/types";

/**
 * The review queue: assets that need a person's decision and have not had one since — rejected by
 * the pipeline (unanalysable ones included), failed (`error`), or approved with an alert raised.
 * A decision (portal or API) sets `reviewed_at`, which takes the asset out; a new pipeline run
 * puts it back. Cursor paging over (createdAt, id), newest or oldest first.
 */
const NEEDS_DECISION: Prisma.AssetWhereInput = {
  reviewedAt: null,
  OR: [{ status: { in: ["rejected", "error"] } }, ALERTED_WHERE],
};

const BY_REASON: Record<QueueReason, Prisma.AssetWhereInput> = {
  rejected: { status: "rejected" },
  error: { status: "error" },
  alerted: ALERTED_WHERE,
};

export function queueReason(row: Pick<AssetRow, "status" | "flagged" | "moderationAction">): QueueReason | null {
  if (row.status === "rejected" || row.status === "error") return row.status;
  return isAlerted(row) ? "alerted" : null;
}

export function isInQueue(row: Pick<AssetRow, "status" | "reviewedAt" | "flagged" | "moderationAction">): boolean {
  if (row.reviewedAt !== null) return false;
  return queueReason(row) !== null;
}

/** The lowest score of a likelihood band. */
export function minimumScore(likelihood: Likelihood): number {
  const index = LIKELIHOODS.indexOf(likelihood);
  return index === 0 ? 0 : (LIKELIHOOD_BANDS[index - 1]?.below ?? 0);
}

interface Cursor {
  t: number;
  id: string;
}

export function encodeCursor(row: { createdAt: Date; id: string }): string {
  return Buffer.from(JSON.stringify({ t: row.createdAt.getTime(), id: row.id })).toString("base64url");
}

export function decodeCursor(cursor: string): Cursor {
  try {
    const value = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Partial<Cursor>;
    if (typeof value.t === "number" && Number.isFinite(value.t) && typeof value.id === "string" && isUuid(value.id)) {
      return { t: value.t, id: value.id };
    }
  } catch {
    // falls through to the error
  }
  throw new ApiError("request/validation-failed", "query.cursor: not a cursor this queue returned");
}

/** How many assets wait in the project's review queue now. */
export function queueSize(projectId: string): Promise<number> {
  return db().asset.count({ where: { projectId, ...NEEDS_DECISION } });
}

export function queueWhere(projectId: string, query: QueueQuery): Prisma.AssetWhereInput {
  const and: Prisma.AssetWhereInput[] = [{ projectId }, NEEDS_DECISION];
  if (query.reason) and.push(BY_REASON[query.reason]);
  if (query.type) and.push({ type: dbAssetType(query.type) });
  if (query.folderId) and.push({ folderId: query.folderId === "root" ? null : query.folderId });
  if (query.from) and.push({ createdAt: { gte: new Date(query.from) } });
  if (query.to) and.push({ createdAt: { lt: new Date(query.to) } });
  if (query.category) {
    and.push({ report: { path: ["categories", query.category, "score"], gte: minimumScore(query.likelihood ?? "possible") } });
  } else if (query.likelihood) {
    // Any category at that likelihood or above.
    and.push({ OR: CATEGORIES.map((c) => ({ report: { path: ["categories", c, "score"], gte: minimumScore(query.likelihood!) } })) });
  }
  if (query.cursor) {
    const cursor = decodeCursor(query.cursor);
    const at = new Date(cursor.t);
    const before = query.order === "oldest" ? "gt" : "lt";
    and.push({ OR: [{ createdAt: { [before]: at } }, { createdAt: at, id: { [before]: cursor.id } }] });
  }
  return { AND: and };
}

export async function reviewQueuePage(projectId: string, query: QueueQuery): Promise<QueuePage> {
  const limit = query.limit ?? 25;
  const direction = query.order === "oldest" ? "asc" : "desc";
  const rows = await db().asset.findMany({
    where: queueWhere(projectId, query),
    orderBy: [{ createdAt: direction }, { id: direction }],
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  const keep = await keepContentByDefault(projectId);
  return { items: page.map((row) => queueItem(row, keep)), nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!) : null };
}

/** The highest-scoring judged category of a report. */
export function topCategory(report: unknown): QueueItem["topCategory"] {
  const categories = (report as { categories?: Record<string, { status?: string; score?: number; likelihood?: Likelihood }> } | null)?.categories;
  if (!categories) return null;
  let best: QueueItem["topCategory"] = null;
  for (const category of CATEGORIES) {
    const entry = categories[category];
    if (!entry || entry.status === "not-evaluated" || typeof entry.score !== "number" || !entry.likelihood) continue;
    if (!best || entry.score > best.score) best = { category: category as Category, likelihood: entry.likelihood, score: entry.score };
  }
  return best;
}

/**
 * Media URLs for people of the project: the CDN itself (with the portal session) for what it
 * delivers — approved, retained, present, not held — and the review media route for the rest
 * (a reviewer has to see what was rejected).
 */
function mediaUrls(row: AssetRow, keepContentByDefault: boolean): Pick<QueueItem, "previewUrl" | "contentUrl"> {
  const hasContent = row.storageId !== null && row.storageDeletedAt === null;
  const keep = (row.processingOptions as { keepContentAfterProcessing?: boolean | null } | null)?.keepContentAfterProcessing ?? keepContentByDefault;
  const delivered = row.status === "approved" && row.safetyHold === null && hasContent && keep;
  const url = (resource: "content" | "preview") =>
    delivered ? `${CDN_MOUNT}/assets/${row.projectId}/${row.id}/${resource}` : `/api/portal/projects/${row.projectId}/assets/${row.id}/media/${resource}`;
  return { previewUrl: row.previewImage ? url("preview") : null, contentUrl: hasContent ? url("content") : null };
}

/** The project's retention default, which the media URLs need (one read per page or decision). */
export async function keepContentByDefault(projectId: string): Promise<boolean> {
  const project = await db().project.findUnique({ where: { id: projectId }, select: { keepContentByDefault: true } });
  return project?.keepContentByDefault ?? false;
}

export function queueItem(row: AssetRow, keepByDefault: boolean): QueueItem {
  return {
    asset: serializeAsset(row),
    reason: queueReason(row),
    topCategory: topCategory(row.report),
    ...mediaUrls(row, keepByDefault),
    canApprove: row.status === "rejected" || (isAlerted(row) && row.reviewedAt === null),
  };
}
