import { apiAssetType, assetSnapshot } from "@/lib/assets/serialize";
import { removeStoredContent, withDescendants } from "@/lib/assets/delete";
import { db } from "@/lib/db/client";
import { Prisma, type Asset as AssetRow } from "@/lib/db/generated/client";
import { recordEvent } from "@/lib/events/record";
import { decide, thresholdOverridesSchema, type ModerationAction } from "../policy";
import type { Analysis } from "./analyze";
import type { ChildDraft } from "./children";
import { announceDecision, DECISION_CHANNEL } from "./dispatch";
import type { ProcessAssetData } from "./events";

/**
 * The decision: applies an analysis to the asset in one transaction (status, report, action,
 * safety hold, events), then removes stored content when due, then announces the decision to
 * waiting requests. Idempotent: only an asset still `pending` in the same processing generation
 * changes, and content removal is derived from the stored decision, so a retried step or a
 * duplicate run does nothing twice and a crash between the two parts is repaired by the retry.
 */
export interface AppliedDecision {
  /** This call made the decision (false: it had been made already, or the asset moved on). */
  applied: boolean;
  status: AssetRow["status"];
  contentRemoved: boolean;
}

export async function finishProcessing(data: ProcessAssetData, analysis: Analysis): Promise<AppliedDecision> {
  const applied = await applyAnalysis(data, analysis);
  const contentRemoved = await removeContentIfDue(data);
  await announce(data.assetId);
  return { ...applied, contentRemoved };
}

async function announce(assetId: string): Promise<void> {
  await db().$executeRaw`SELECT pg_notify(${DECISION_CHANNEL}, ${assetId})`;
  announceDecision(assetId);
}

type Tx = Prisma.TransactionClient;

async function lockPending(tx: Tx, data: ProcessAssetData): Promise<AssetRow | null> {
  const [locked] = await tx.$queryRaw<{ id: string }[]>`
    SELECT id::text FROM assets WHERE id = ${data.assetId}::uuid AND status = 'pending' AND processing_generation = ${data.generation}
    FOR UPDATE`;
  return locked ? tx.asset.findUnique({ where: { id: locked.id } }) : null;
}

function rejectionNoteFor(categories: readonly string[], action: ModerationAction): string {
  return `Automatically rejected (${action}): flagged for ${categories.join(", ")}`;
}

async function applyAnalysis(data: ProcessAssetData, analysis: Analysis): Promise<Omit<AppliedDecision, "contentRemoved">> {
  return db().$transaction(async (tx) => {
    const asset = await lockPending(tx, data);
    if (!asset) {
      const current = await tx.asset.findUnique({ where: { id: data.assetId } });
      return { applied: false, status: current?.status ?? "error" };
    }
    const project = await tx.project.findUniqueOrThrow({ where: { id: asset.projectId } });
    const options = asset.processingOptions as { keepContentAfterProcessing?: boolean | null; flaggedContentPolicy?: { action: ModerationAction } | null } | null;
    const policy = {
      thresholds: thresholdOverridesSchema.safeParse(project.moderationThresholds).data,
      action: options?.flaggedContentPolicy?.action,
      defaultAction: project.defaultModerationAction,
    };
    const decision = decide(analysis.report, policy);
    const updated = await tx.asset.update({
      where: { id: asset.id },
      data: {
        status: decision.status,
        report: analysis.report as Prisma.InputJsonValue,
        flagged: decision.flagged,
        moderationAction: decision.moderationAction,
        rejectionNote: decision.status === "rejected" && decision.moderationAction ? rejectionNoteFor(decision.flaggedCategories, decision.moderationAction) : null,
        extractedText: analysis.extractedText ?? asset.extractedText,
        labels: analysis.labels,
        ...(analysis.hold && !asset.safetyHold ? { safetyHold: { ...analysis.hold, heldAt: Date.now() } } : {}),
      },
    });
    for (const child of analysis.children) await upsertChild(tx, updated, child, decide(child.report, policy));
    const common = [
      { key: "asset-name", value: updated.name },
      { key: "asset-type", value: apiAssetType(updated.type) },
    ];
    const factAction = decision.moderationAction === "ignore" ? null : decision.moderationAction;
    await recordEvent(tx, {
      projectId: updated.projectId,
      type: "asset.classified",
      title: `Asset ${decision.status}: ${updated.name}`,
      userId: updated.userId,
      asset: assetSnapshot(updated),
      facts: [...common, { key: "status", value: decision.status }, { key: "moderation-action", value: factAction }],
    });
    if (decision.flagEvent) {
      await recordEvent(tx, {
        projectId: updated.projectId,
        type: "asset.flagged",
        title: `Asset flagged: ${updated.name}`,
        description: `Flagged for ${decision.flagEvent.flaggedCategories.join(", ")}; action ${decision.flagEvent.moderationAction}.`,
        userId: updated.userId,
        asset: assetSnapshot(updated),
        facts: [
          ...common,
          { key: "flagged-categories", value: decision.flagEvent.flaggedCategories },
          { key: "moderation-action", value: decision.flagEvent.moderationAction },
        ],
      });
    }
    return { applied: true, status: updated.status };
  });
}

/** Children are decided with their parent's policy; they carry no events of their own (the parent's cover them). */
async function upsertChild(tx: Tx, parent: AssetRow, child: ChildDraft, decision: ReturnType<typeof decide>): Promise<void> {
  const columns = {
    status: decision.status,
    report: child.report as Prisma.InputJsonValue,
    flagged: decision.flagged,
    moderationAction: decision.moderationAction,
    rejectionNote: decision.status === "rejected" && decision.moderationAction ? rejectionNoteFor(decision.flaggedCategories, decision.moderationAction) : null,
    extractedText: child.extractedText,
    storageId: child.storageId,
    sizeInBytes: BigInt(child.sizeInBytes),
    checksums: child.checksums,
    imageData: child.imageData ?? Prisma.DbNull,
  };
  await tx.asset.upsert({
    where: { id: child.id },
    update: columns,
    create: {
      ...columns,
      id: child.id,
      projectId: parent.projectId,
      userId: parent.userId,
      parentId: parent.id,
      derivedKey: child.derivedKey,
      name: child.name,
      type: child.type,
      fileFormat: child.fileFormat,
      fileExtension: child.fileExtension,
      visibility: parent.visibility,
      processingGeneration: parent.processingGeneration,
    },
  });
}

/**
 * Content is removed after processing when the decision was `purge`, or when the upload did not
 * ask to keep it (processingOptions.keepContentAfterProcessing, default: the project's
 * keepContentByDefault). Held content is evidence and is never removed automatically.
 */
async function removeContentIfDue(data: ProcessAssetData): Promise<boolean> {
  const asset = await db().asset.findUnique({ where: { id: data.assetId }, include: { project: true } });
  if (!asset || asset.processingGeneration !== data.generation || asset.safetyHold !== null) return false;
  if (asset.status !== "approved" && asset.status !== "rejected") return false;
  if (asset.storageId === null && asset.storageDeletedAt !== null) return false;
  const options = asset.processingOptions as { keepContentAfterProcessing?: boolean | null } | null;
  const keep = options?.keepContentAfterProcessing ?? asset.project.keepContentByDefault;
  if (keep && asset.moderationAction !== "purge") return false;
  const tree = await withDescendants(asset);
  await removeStoredContent(tree);
  const { count } = await db().asset.updateMany({
    where: { id: { in: tree.map((a) => a.id) }, storageDeletedAt: null },
    data: { storageId: null, storageDeletedAt: new Date() },
  });
  return count > 0;
}

/** Final failure of processing: `error` and `asset.failed` (previous-status), once per generation. */
export async function markProcessingFailed(data: ProcessAssetData, reason: string): Promise<boolean> {
  const changed = await db().$transaction(async (tx) => {
    const asset = await lockPending(tx, data);
    if (!asset) return false;
    const updated = await tx.asset.update({ where: { id: asset.id }, data: { status: "error", rejectionNote: null } });
    await recordEvent(tx, {
      projectId: updated.projectId,
      type: "asset.failed",
      title: `Asset could not be processed: ${updated.name}`,
      description: reason.slice(0, 1000),
      userId: updated.userId,
      asset: assetSnapshot(updated),
      facts: [
        { key: "asset-name", value: updated.name },
        { key: "asset-type", value: apiAssetType(updated.type) },
        { key: "previous-status", value: asset.status },
      ],
    });
    return true;
  });
  if (changed) await announce(data.assetId);
  return changed;
}
