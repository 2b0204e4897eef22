import type pg from "pg";
import { removeStoredContent, withDescendants } from "@/lib/assets/delete";
import type { Checksums, HashListHoldFinding, ImageData, PreviewImage } from "@/lib/assets/field-schemas";
import type { Report } from "@/lib/assets/report-schema";
import { apiAssetType } from "@/lib/assets/serialize";
import { assetContentKey } from "@/lib/assets/storage-keys";
import { db, sqlPool } from "@/lib/db/client";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import type { AssetType, ModerationAction, UnanalysableAction } from "@/lib/db/generated/enums";
import { withTransaction } from "@/lib/db/transaction";
import { recordEvents, type NewEvent } from "@/lib/events/record";
import { labellingQueued, queueLabelling } from "@/lib/assets/labels/queue";
import type { LabelAssetData } from "@/lib/assets/labels/request";
import { deleteLabelSources } from "@/lib/assets/labels/sources";
import { announceDecision, DECISION_CHANNEL } from "./dispatch";
import type { ProcessAssetData } from "./request";

/**
 * Applies a processing outcome to an asset: the assets side of the pipeline's decision. In one
 * transaction: status, report, action, safety hold, preview, children, events, and — when due —
 * storageId and previewImage null with storageDeletedAt; the stored bytes (the preview's with them)
 * are deleted after commit, then waiting requests are woken. Idempotent: only an asset still
 * `pending` in the same processing generation changes; a re-run after a crash between commit and
 * file deletion deletes the (deterministically named) files again. Written in SQL: it sits on the
 * path of every `queue=false` upload.
 *
 * The decider (moderation) sees the locked asset with its project's policy columns and returns what
 * to write; it writes nothing itself.
 */
export interface LockedAsset {
  id: string;
  projectId: string;
  userId: string | null;
  name: string;
  /** The API's type name (plaintext-document, …). */
  type: string;
  externalId: string | null;
  processingOptions: {
    keepContentAfterProcessing?: boolean | null;
    flaggedContentPolicy?: { action: ModerationAction } | null;
  } | null;
  safetyHold: unknown;
  moderationThresholds: unknown;
  defaultModerationAction: ModerationAction;
  keepContentByDefault: boolean;
  unanalysableAction: UnanalysableAction;
}

/** Whether the asset's content is kept after processing: the upload's choice, else the project's default. */
export function keepsContent(processingOptions: LockedAsset["processingOptions"], keepContentByDefault: boolean): boolean {
  return processingOptions?.keepContentAfterProcessing ?? keepContentByDefault;
}

/** A child extracted by the analysis (OCR text, a document's text or images), already stored. */
export interface ChildOutcome {
  id: string;
  derivedKey: string;
  name: string;
  type: AssetType;
  status: ProcessingOutcome["status"];
  fileFormat: string;
  fileExtension: string;
  storageId: string;
  sizeInBytes: number;
  checksums: Checksums;
  imageData: ImageData | null;
  extractedText: string | null;
  report: Report;
  flagged: boolean;
  moderationAction: ModerationAction | null;
  rejectionNote: string | null;
}

/**
 * The asset's `previewImage` (returned by the API as is, documented by `previewImageSchema`): a WebP
 * stored at previewContentKey(projectId, assetId), made by the analysis of this processing generation.
 */
export type { PreviewImage };

export interface ProcessingOutcome {
  /** `error`: the asset could not be (fully) processed; it can be retried. */
  status: "approved" | "rejected" | "error";
  report: Report;
  flagged: boolean;
  moderationAction: ModerationAction | null;
  rejectionNote: string | null;
  extractedText: string | null;
  labels: string[];
  /** A safety hold found by the analysis (hash lists). */
  hold: HashListHoldFinding | null;
  /** Null when the content is not retained, the type has no preview or rendering it failed. */
  previewImage: PreviewImage | null;
  children: ChildOutcome[];
  events: NewEvent[];
  /** The policy wants the content gone; held content is kept whatever this says. */
  removeContent: boolean;
  /** Labelling to run after the decision (its job is queued in the decision's transaction). */
  labelRequest: LabelAssetData | null;
  /** The analysis stored copies for labelling that no labelling will read (e.g. purged content). */
  dropLabelSources: boolean;
}

export interface AppliedDecision {
  /** This call made the decision (false: it had been made already, or the asset moved on). */
  applied: boolean;
  status: AssetRow["status"];
  contentRemoved: boolean;
}

interface RemovedObject {
  id: string;
  projectId: string;
  storageId: string | null;
}

type Ref = Pick<ProcessAssetData, "assetId" | "generation">;

export async function applyProcessingOutcome(data: Ref, decide: (asset: LockedAsset) => ProcessingOutcome): Promise<AppliedDecision> {
  const result = await withTransaction(sqlPool(), async (client) => {
    const asset = await lockPendingAsset(client, data);
    if (!asset) return { ...(await currentStatus(data.assetId)), removed: null };
    const outcome = decide(asset);
    await writeOutcome(client, asset, outcome);
    for (const child of outcome.children) await upsertChild(client, asset.id, child);
    await recordEvents(client, outcome.events);
    const labelsWindow = outcome.labelRequest ? await queueLabelling(client, outcome.labelRequest) : null;
    const held = asset.safetyHold !== null || outcome.hold !== null;
    // Held content is evidence: never removed automatically.
    const removed = outcome.removeContent && !held ? await markContentRemoved(client, asset.id) : null;
    await client.query(`SELECT pg_notify($1, $2)`, [DECISION_CHANNEL, asset.id]);
    const unread = outcome.dropLabelSources ? { projectId: asset.projectId, assetId: asset.id, generation: data.generation } : null;
    return { applied: true, status: outcome.status as AssetRow["status"], removed, labelsWindow, unread };
  });
  if ("labelsWindow" in result) labellingQueued(result.labelsWindow ?? null);
  // Best effort: copies left behind by a crash here are removed with the asset or its content.
  if ("unread" in result && result.unread) await deleteLabelSources(result.unread).catch(() => undefined);
  return afterCommit(data.assetId, result);
}

/**
 * A run whose analysis found the asset no longer pending in its generation: nothing to decide, but
 * the content removal of a decision that committed before a crash may still be due.
 */
export async function finishDecidedAsset(data: Ref): Promise<AppliedDecision> {
  return afterCommit(data.assetId, { ...(await currentStatus(data.assetId)), removed: await leftoverContent(data) });
}

async function afterCommit(
  assetId: string,
  result: { applied: boolean; status: AssetRow["status"]; removed: RemovedObject[] | null },
): Promise<AppliedDecision> {
  if (result.removed) await removeStoredContent(result.removed);
  if (!result.applied) await sqlPool().query(`SELECT pg_notify($1, $2)`, [DECISION_CHANNEL, assetId]);
  announceDecision(assetId);
  return { applied: result.applied, status: result.status, contentRemoved: result.removed !== null && result.removed.length > 0 };
}

export const LOCK_PENDING_ASSET = `SELECT a.id::text, a.project_id::text AS "projectId", a.user_id::text AS "userId", a.name, a.type::text, a.external_id AS "externalId",
            a.processing_options AS "processingOptions", a.safety_hold AS "safetyHold", p.moderation_thresholds AS "moderationThresholds",
            p.default_moderation_action::text AS "defaultModerationAction", p.keep_content_by_default AS "keepContentByDefault",
            p.unanalysable_action::text AS "unanalysableAction"
       FROM assets a JOIN projects p ON p.id = a.project_id
      WHERE a.id = $1 AND a.status = 'pending' AND a.processing_generation = $2
        FOR UPDATE OF a`;

async function lockPendingAsset(client: pg.PoolClient, data: Ref): Promise<LockedAsset | undefined> {
  const { rows } = await client.query<LockedAsset>(
    LOCK_PENDING_ASSET,
    [data.assetId, data.generation],
  );
  return rows[0];
}

async function currentStatus(assetId: string): Promise<{ applied: false; status: AssetRow["status"] }> {
  const { rows } = await sqlPool().query<{ status: AssetRow["status"] }>(`SELECT status FROM assets WHERE id = $1`, [assetId]);
  return { applied: false, status: rows[0]?.status ?? "error" };
}

/** After a crash between the decision's commit and the file deletion: the files to delete again. */
async function leftoverContent(data: Ref): Promise<RemovedObject[] | null> {
  const asset = await db().asset.findUnique({ where: { id: data.assetId } });
  if (!asset || asset.processingGeneration !== data.generation || asset.storageDeletedAt === null || asset.safetyHold !== null) return null;
  const tree = await withDescendants(asset);
  return tree.map((a) => ({ ...a, storageId: a.id === asset.id ? assetContentKey(a.projectId, a.id) : null }));
}

export const UPDATE_DECIDED_ASSET = `UPDATE assets SET status = $2::asset_status, report = $3, flagged = $4, moderation_action = $5::moderation_action,
        rejection_note = $6, extracted_text = coalesce($7, extracted_text), labels = $8,
        safety_hold = coalesce(safety_hold, $9::jsonb), preview_image = $10::jsonb, updated_at = now()
  WHERE id = $1`;

async function writeOutcome(client: pg.PoolClient, asset: LockedAsset, outcome: ProcessingOutcome): Promise<void> {
  await client.query(UPDATE_DECIDED_ASSET, [
    asset.id,
    outcome.status,
    JSON.stringify(outcome.report),
    outcome.flagged,
    outcome.moderationAction,
    outcome.rejectionNote,
    outcome.extractedText,
    outcome.labels,
    outcome.hold ? JSON.stringify({ ...outcome.hold, heldAt: Date.now() }) : null,
    outcome.previewImage ? JSON.stringify(outcome.previewImage) : null,
  ]);
}

export const UPSERT_CHILD_ASSET = `INSERT INTO assets (id, project_id, user_id, parent_id, derived_key, name, type, status, file_format, file_extension, size_in_bytes,
                     checksums, image_data, storage_id, report, flagged, moderation_action, rejection_note, extracted_text, visibility,
                     processing_generation, queued, created_at, updated_at)
 SELECT $1::uuid, project_id, user_id, id, $2, $3, $4::asset_type, $5::asset_status, $6, $7, $8, $9, $10, $11, $12, $13,
        $14::moderation_action, $15, $16, visibility, processing_generation, true, now(), now()
   FROM assets WHERE id = $17
 ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, report = EXCLUDED.report, flagged = EXCLUDED.flagged,
        moderation_action = EXCLUDED.moderation_action, rejection_note = EXCLUDED.rejection_note, extracted_text = EXCLUDED.extracted_text,
        storage_id = EXCLUDED.storage_id, size_in_bytes = EXCLUDED.size_in_bytes, checksums = EXCLUDED.checksums,
        image_data = EXCLUDED.image_data, processing_generation = EXCLUDED.processing_generation, updated_at = now()`;

/** Children carry no events of their own (the parent's cover them). */
async function upsertChild(client: pg.PoolClient, parentId: string, child: ChildOutcome): Promise<void> {
  await client.query(UPSERT_CHILD_ASSET, [
    child.id,
    child.derivedKey,
    child.name,
    apiAssetType(child.type),
    child.status,
    child.fileFormat,
    child.fileExtension,
    child.sizeInBytes,
    JSON.stringify(child.checksums),
    child.imageData ? JSON.stringify(child.imageData) : null,
    child.storageId,
    JSON.stringify(child.report),
    child.flagged,
    child.moderationAction,
    child.rejectionNote,
    child.extractedText,
    parentId,
  ]);
}

export const MARK_CONTENT_REMOVED = `WITH RECURSIVE tree AS (
   SELECT id FROM assets WHERE id = $1
   UNION ALL SELECT a.id FROM assets a JOIN tree t ON a.parent_id = t.id
 ), old AS (SELECT id, project_id, storage_id FROM assets WHERE id IN (SELECT id FROM tree))
 UPDATE assets a SET storage_id = NULL, storage_deleted_at = now(), preview_image = NULL
   FROM old WHERE a.id = old.id AND a.storage_deleted_at IS NULL
 RETURNING old.id::text AS id, old.project_id::text AS "projectId", old.storage_id AS "storageId"`;

/** Marks the asset and its descendants as without content (nor preview); returns what to delete after commit. */
async function markContentRemoved(client: pg.PoolClient, assetId: string): Promise<RemovedObject[]> {
  const { rows } = await client.query<RemovedObject>(MARK_CONTENT_REMOVED, [assetId]);
  return rows;
}

export const MARK_PROCESSING_FAILED = `UPDATE assets SET status = 'error', rejection_note = NULL, updated_at = now()
  WHERE id = $1 AND status = 'pending' AND processing_generation = $2
  RETURNING project_id::text, user_id::text, name, type::text, external_id`;

/** The `asset.failed` event of a pending asset whose processing failed (status `error`). */
export function processingFailedEvent(
  asset: Pick<LockedAsset, "id" | "projectId" | "userId" | "name" | "type" | "externalId">,
  reason: string,
  flagged: boolean | null,
): NewEvent {
  return {
    projectId: asset.projectId,
    userId: asset.userId,
    type: "asset.failed",
    title: `Asset could not be processed: ${asset.name}`,
    description: reason.slice(0, 1000),
    asset: { id: asset.id, externalId: asset.externalId, status: "error", flagged, moderationAction: null },
    facts: [
      { key: "asset-name", value: asset.name },
      { key: "asset-type", value: asset.type },
      { key: "previous-status", value: "pending" },
    ],
  };
}

/** Final failure of processing: `error` and `asset.failed` (previous-status), once per generation. */
export async function markProcessingFailed(data: Ref, reason: string): Promise<boolean> {
  const changed = await withTransaction(sqlPool(), async (client) => {
    const { rows } = await client.query<{ project_id: string; user_id: string | null; name: string; type: string; external_id: string | null }>(
      MARK_PROCESSING_FAILED,
      [data.assetId, data.generation],
    );
    const asset = rows[0];
    if (!asset) return false;
    const failed = { id: data.assetId, projectId: asset.project_id, userId: asset.user_id, name: asset.name, type: asset.type, externalId: asset.external_id };
    await recordEvents(client, [processingFailedEvent(failed, reason, null)]);
    await client.query(`SELECT pg_notify($1, $2)`, [DECISION_CHANNEL, data.assetId]);
    return true;
  });
  if (changed) announceDecision(data.assetId);
  return changed;
}
