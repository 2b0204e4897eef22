import type pg from "pg";
import { removeStoredContent, withDescendants } from "@/lib/assets/delete";
import { apiAssetType } from "@/lib/assets/serialize";
import { assetContentKey } from "@/lib/assets/storage-keys";
import { db, sqlPool } from "@/lib/db/client";
import { withTransaction } from "@/lib/db/transaction";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import type { EventFact } from "@/lib/events/catalogue";
import { recordEventsSql, type NewEvent } from "@/lib/events/record";
import { decide, thresholdOverridesSchema, type Decision, type ModerationAction } from "../policy";
import type { Analysis } from "./analyze";
import type { ChildDraft } from "./children";
import { announceDecision, DECISION_CHANNEL } from "./dispatch";
import type { ProcessAssetData } from "./events";

/**
 * The decision: applies an analysis in one transaction (status, report, action, safety hold,
 * children, events, and — when due — storageId null with storageDeletedAt), deletes the stored
 * bytes after commit, then wakes waiting requests. Idempotent: only an asset still `pending` in
 * the same processing generation changes; a re-run after a crash between commit and file deletion
 * deletes the (deterministically named) files again. Written in SQL: it sits on the path of every
 * `queue=false` upload.
 */
export interface AppliedDecision {
  /** This call made the decision (false: it had been made already, or the asset moved on). */
  applied: boolean;
  status: AssetRow["status"];
  contentRemoved: boolean;
}

interface LockedAsset {
  id: string;
  project_id: string;
  user_id: string | null;
  name: string;
  type: string;
  external_id: string | null;
  visibility: string | null;
  extracted_text: string | null;
  processing_options: { keepContentAfterProcessing?: boolean | null; flaggedContentPolicy?: { action: ModerationAction } | null } | null;
  safety_hold: unknown;
  moderation_thresholds: unknown;
  default_moderation_action: ModerationAction;
  keep_content_by_default: boolean;
}

interface RemovedObject {
  id: string;
  projectId: string;
  storageId: string | null;
}

export async function finishProcessing(data: ProcessAssetData, analysis: Analysis | null): Promise<AppliedDecision> {
  let result: { applied: boolean; status: AssetRow["status"]; removed: RemovedObject[] | null };
  if (analysis) result = await applyAnalysis(data, analysis);
  else result = { ...(await currentStatus(data.assetId)), removed: await leftoverContent(data) };
  if (result.removed) await removeStoredContent(result.removed);
  if (!result.applied) await sqlPool().query(`SELECT pg_notify($1, $2)`, [DECISION_CHANNEL, data.assetId]);
  announceDecision(data.assetId);
  return { applied: result.applied, status: result.status, contentRemoved: result.removed !== null && result.removed.length > 0 };
}

async function currentStatus(assetId: string): Promise<{ applied: false; status: AssetRow["status"] }> {
  const { rows } = await sqlPool().query<{ status: AssetRow["status"] }>(`SELECT status FROM assets WHERE id = $1`, [assetId]);
  return { applied: false, status: rows[0]?.status ?? "error" };
}

/** After a crash between the decision's commit and the file deletion: the files to delete again. */
async function leftoverContent(data: ProcessAssetData): Promise<RemovedObject[] | null> {
  const asset = await db().asset.findUnique({ where: { id: data.assetId } });
  if (!asset || asset.processingGeneration !== data.generation || asset.storageDeletedAt === null || asset.safetyHold !== null) return null;
  const tree = await withDescendants(asset);
  return tree.map((a) => ({ ...a, storageId: a.id === asset.id ? assetContentKey(a.projectId, a.id) : null }));
}

function rejectionNoteFor(decision: Decision): string | null {
  if (decision.status !== "rejected" || !decision.moderationAction) return null;
  return `Automatically rejected (${decision.moderationAction}): flagged for ${decision.flaggedCategories.join(", ")}`;
}

function inTransaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  return withTransaction(sqlPool(), fn);
}

async function applyAnalysis(
  data: ProcessAssetData,
  analysis: Analysis,
): Promise<{ applied: boolean; status: AssetRow["status"]; removed: RemovedObject[] | null }> {
  return inTransaction(async (client) => {
    const { rows } = await client.query<LockedAsset>(
      `SELECT a.id::text, a.project_id::text, a.user_id::text, a.name, a.type::text, a.external_id, a.visibility::text, a.extracted_text,
              a.processing_options, a.safety_hold, p.moderation_thresholds, p.default_moderation_action::text, p.keep_content_by_default
         FROM assets a JOIN projects p ON p.id = a.project_id
        WHERE a.id = $1 AND a.status = 'pending' AND a.processing_generation = $2
          FOR UPDATE OF a`,
      [data.assetId, data.generation],
    );
    const asset = rows[0];
    if (!asset) return { ...(await currentStatus(data.assetId)), removed: null };

    const options = asset.processing_options;
    const policy = {
      thresholds: thresholdOverridesSchema.safeParse(asset.moderation_thresholds).data,
      action: options?.flaggedContentPolicy?.action,
      defaultAction: asset.default_moderation_action,
    };
    const decision = decide(analysis.report, policy);
    const held = asset.safety_hold !== null || analysis.hold !== null;
    const keep = options?.keepContentAfterProcessing ?? asset.keep_content_by_default;
    // Held content is evidence: never removed automatically.
    const removeContent = !held && (decision.removeContent || !keep);

    await client.query(
      `UPDATE assets SET status = $2::asset_status, report = $3, flagged = $4, moderation_action = $5::moderation_action,
              rejection_note = $6, extracted_text = coalesce($7, extracted_text), labels = $8,
              safety_hold = coalesce(safety_hold, $9::jsonb), updated_at = now()
        WHERE id = $1`,
      [
        asset.id,
        decision.status,
        // The decision's own thresholds decide `flagged` (the project may have changed them since the analysis).
        JSON.stringify({ ...analysis.report, flagged: decision.flagged }),
        decision.flagged,
        decision.moderationAction,
        rejectionNoteFor(decision),
        analysis.extractedText,
        analysis.labels,
        analysis.hold ? JSON.stringify({ ...analysis.hold, heldAt: Date.now() }) : null,
      ],
    );
    for (const child of analysis.children) await upsertChild(client, asset, child, decide(child.report, policy));
    await recordEventsSql(client, decisionEvents(asset, decision));
    const removed = removeContent ? await markContentRemoved(client, asset.id) : null;
    await client.query(`SELECT pg_notify($1, $2)`, [DECISION_CHANNEL, asset.id]);
    return { applied: true, status: decision.status, removed };
  });
}

function decisionEvents(asset: LockedAsset, decision: Decision): NewEvent[] {
  const snapshot = { id: asset.id, externalId: asset.external_id, status: decision.status, flagged: decision.flagged, moderationAction: decision.moderationAction };
  const base = { projectId: asset.project_id, userId: asset.user_id, asset: snapshot };
  // The database stores the API's type names (plaintext-document, …).
  const common: EventFact[] = [
    { key: "asset-name", value: asset.name },
    { key: "asset-type", value: asset.type },
  ];
  const events: NewEvent[] = [
    {
      ...base,
      type: "asset.classified",
      title: `Asset ${decision.status}: ${asset.name}`,
      facts: [
        ...common,
        { key: "status", value: decision.status },
        { key: "moderation-action", value: decision.moderationAction === "ignore" ? null : decision.moderationAction },
      ],
    },
  ];
  if (decision.flagEvent) {
    events.push({
      ...base,
      type: "asset.flagged",
      title: `Asset flagged: ${asset.name}`,
      description: `Flagged for ${decision.flagEvent.flaggedCategories.join(", ")}; action ${decision.flagEvent.moderationAction}.`,
      facts: [
        ...common,
        { key: "flagged-categories", value: decision.flagEvent.flaggedCategories },
        { key: "moderation-action", value: decision.flagEvent.moderationAction },
      ],
    });
  }
  return events;
}

/** Children are decided with their parent's policy; they carry no events of their own (the parent's cover them). */
async function upsertChild(client: pg.PoolClient, parent: LockedAsset, child: ChildDraft, decision: Decision): Promise<void> {
  await client.query(
    `INSERT INTO assets (id, project_id, user_id, parent_id, derived_key, name, type, status, file_format, file_extension, size_in_bytes,
                         checksums, image_data, storage_id, report, flagged, moderation_action, rejection_note, extracted_text, visibility,
                         processing_generation, queued, created_at, updated_at)
     SELECT $1::uuid, project_id, user_id, id, $2, $3, $4::asset_type, $5::asset_status, $6, $7, $8, $9, $10, $11, $12, $13,
            $14::moderation_action, $15, $16, visibility, processing_generation, true, now(), now()
       FROM assets WHERE id = $17
     ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, report = EXCLUDED.report, flagged = EXCLUDED.flagged,
            moderation_action = EXCLUDED.moderation_action, rejection_note = EXCLUDED.rejection_note, extracted_text = EXCLUDED.extracted_text,
            storage_id = EXCLUDED.storage_id, size_in_bytes = EXCLUDED.size_in_bytes, checksums = EXCLUDED.checksums,
            image_data = EXCLUDED.image_data, processing_generation = EXCLUDED.processing_generation, updated_at = now()`,
    [
      child.id,
      child.derivedKey,
      child.name,
      apiAssetType(child.type),
      decision.status,
      child.fileFormat,
      child.fileExtension,
      child.sizeInBytes,
      JSON.stringify(child.checksums),
      child.imageData ? JSON.stringify(child.imageData) : null,
      child.storageId,
      JSON.stringify({ ...child.report, flagged: decision.flagged }),
      decision.flagged,
      decision.moderationAction,
      rejectionNoteFor(decision),
      child.extractedText,
      parent.id,
    ],
  );
}

/** Marks the asset and its descendants as without content; returns what to delete after commit. */
async function markContentRemoved(client: pg.PoolClient, assetId: string): Promise<RemovedObject[]> {
  const { rows } = await client.query<RemovedObject>(
    `WITH RECURSIVE tree AS (
       SELECT id FROM assets WHERE id = $1
       UNION ALL SELECT a.id FROM assets a JOIN tree t ON a.parent_id = t.id
     ), old AS (SELECT id, project_id, storage_id FROM assets WHERE id IN (SELECT id FROM tree))
     UPDATE assets a SET storage_id = NULL, storage_deleted_at = now()
       FROM old WHERE a.id = old.id AND a.storage_deleted_at IS NULL
     RETURNING old.id::text AS id, old.project_id::text AS "projectId", old.storage_id AS "storageId"`,
    [assetId],
  );
  return rows;
}

/** Final failure of processing: `error` and `asset.failed` (previous-status), once per generation. */
export async function markProcessingFailed(data: ProcessAssetData, reason: string): Promise<boolean> {
  const changed = await inTransaction(async (client) => {
    const { rows } = await client.query<{ project_id: string; user_id: string | null; name: string; type: string; external_id: string | null }>(
      `UPDATE assets SET status = 'error', rejection_note = NULL, updated_at = now()
        WHERE id = $1 AND status = 'pending' AND processing_generation = $2
        RETURNING project_id::text, user_id::text, name, type::text, external_id`,
      [data.assetId, data.generation],
    );
    const asset = rows[0];
    if (!asset) return false;
    await recordEventsSql(client, [
      {
        projectId: asset.project_id,
        userId: asset.user_id,
        type: "asset.failed",
        title: `Asset could not be processed: ${asset.name}`,
        description: reason.slice(0, 1000),
        asset: { id: data.assetId, externalId: asset.external_id, status: "error", flagged: null, moderationAction: null },
        facts: [
          { key: "asset-name", value: asset.name },
          { key: "asset-type", value: asset.type },
          { key: "previous-status", value: "pending" },
        ],
      },
    ]);
    await client.query(`SELECT pg_notify($1, $2)`, [DECISION_CHANNEL, data.assetId]);
    return true;
  });
  if (changed) announceDecision(data.assetId);
  return changed;
}
