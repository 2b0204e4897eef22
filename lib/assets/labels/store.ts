import type { FrameLabels, ImageLabels } from "@/lib/assets/field-schemas";
import type { Report } from "@/lib/assets/report-schema";
import { sqlPool } from "@/lib/db/client";
import { withTransaction } from "@/lib/db/transaction";
import { labelWords, searchTerms } from "./aggregate";

export const LOCK_LABELLED_ASSET = `SELECT report, processing_generation AS generation FROM assets WHERE id = $1 FOR UPDATE`;

/** The label words join the model's words already there (nsfwjs classes, set by the decision). */
export const UPDATE_IMAGE_LABELS = `UPDATE assets SET image_labels = $2::jsonb, report = coalesce($3::jsonb, report),
        labels = ARRAY(SELECT DISTINCT w FROM unnest(labels || $4::text[]) AS w ORDER BY w), updated_at = now()
  WHERE id = $1`;

export const DELETE_LABEL_TERMS = `DELETE FROM asset_labels WHERE asset_id = $1`;

export const INSERT_LABEL_TERMS = `INSERT INTO asset_labels (asset_id, project_id, term, score, count)
  SELECT $1::uuid, $2::uuid, t.term, t.score, t.count FROM unnest($3::text[], $4::real[], $5::int[]) AS t(term, score, count)`;

/**
 * Saves an asset's labels (and, for a video, each frame segment's) with its search terms, in one
 * transaction; false when the asset is gone or was reprocessed since (a newer run labels it).
 */
export async function saveImageLabels(
  target: { assetId: string; projectId: string; generation: number },
  labels: ImageLabels,
  frames: readonly FrameLabels[] | null,
): Promise<boolean> {
  return withTransaction(sqlPool(), async (client) => {
    const { rows } = await client.query<{ report: Report | null; generation: number }>(LOCK_LABELLED_ASSET, [target.assetId]);
    const row = rows[0];
    if (!row || row.generation !== target.generation) return false;
    const report = frames ? withFrameLabels(row.report, frames) : null;
    await client.query(UPDATE_IMAGE_LABELS, [target.assetId, JSON.stringify(labels), report ? JSON.stringify(report) : null, labelWords(labels)]);
    await client.query(DELETE_LABEL_TERMS, [target.assetId]);
    const terms = searchTerms(labels);
    if (terms.length > 0) {
      await client.query(INSERT_LABEL_TERMS, [target.assetId, target.projectId, terms.map((t) => t.term), terms.map((t) => t.score), terms.map((t) => t.count)]);
    }
    return true;
  });
}

/** The report with frame segment i carrying frame i's labels (the frames were sampled in segment order). */
function withFrameLabels(report: Report | null, frames: readonly FrameLabels[]): Report | null {
  if (!report?.media) return null;
  let frame = 0;
  const segments = report.media.segments.map((segment) => (segment.source === "frame" && frame < frames.length ? { ...segment, labels: frames[frame++] } : segment));
  return { ...report, media: { ...report.media, segments } };
}
