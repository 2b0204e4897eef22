import type { FrameLabels, ImageLabels } from "@/lib/assets/field-schemas";
import type { Report } from "@/lib/assets/report-schema";
import { sqlPool } from "@/lib/db/client";
import { withTransaction } from "@/lib/db/transaction";
import type { LabelTerm } from "./aggregate";

export const LOCK_LABELLED_ASSET = `SELECT report, processing_generation AS generation FROM assets WHERE id = $1 FOR UPDATE`;

/**
 * The labels stay out of the text document (`labels`, search_vector): natural-language search reads
 * them from asset_labels, and a common label's word would otherwise match most of a project's text.
 */
export const UPDATE_IMAGE_LABELS = `UPDATE assets SET image_labels = $2::jsonb, report = coalesce($3::jsonb, report), updated_at = now()
  WHERE id = $1`;

export const DELETE_LABEL_TERMS = `DELETE FROM asset_labels WHERE asset_id = $1`;

export const INSERT_LABEL_TERMS = `INSERT INTO asset_labels (asset_id, project_id, term, score, count, created_at)
  SELECT a.id, a.project_id, t.term, t.score, t.count, a.created_at
    FROM assets a, unnest($2::text[], $3::real[], $4::int[]) AS t(term, score, count)
   WHERE a.id = $1::uuid`;

/**
 * A description's words as terms `word:<lexeme>` (PostgreSQL's English stemming, stop words left
 * out), which natural-language search matches with the query's words stemmed the same way.
 */
export const INSERT_DESCRIPTION_TERMS = `INSERT INTO asset_labels (asset_id, project_id, term, score, count, created_at)
  SELECT a.id, a.project_id, 'word:' || w.lexeme, $3::real, 1, a.created_at
    FROM assets a, unnest(tsvector_to_array(to_tsvector('english'::regconfig, $2::text))) AS w(lexeme)
   WHERE a.id = $1::uuid
  ON CONFLICT (asset_id, term) DO NOTHING`;

/** A described word is about as sure as a confident detection (the describer names what it saw). */
export const DESCRIPTION_WORD_SCORE = 0.9;

/**
 * Saves an asset's labels (and, for a video, each frame segment's) with its search terms, in one
 * transaction; false when the asset is gone or was reprocessed since (a newer run labels it).
 */
export async function saveImageLabels(
  target: { assetId: string; projectId: string; generation: number },
  saved: { labels: ImageLabels; frames: readonly FrameLabels[] | null; terms: readonly LabelTerm[] },
): Promise<boolean> {
  const { labels, frames, terms } = saved;
  return withTransaction(sqlPool(), async (client) => {
    const { rows } = await client.query<{ report: Report | null; generation: number }>(LOCK_LABELLED_ASSET, [target.assetId]);
    const row = rows[0];
    if (!row || row.generation !== target.generation) return false;
    const report = frames ? withFrameLabels(row.report, frames) : null;
    await client.query(UPDATE_IMAGE_LABELS, [target.assetId, JSON.stringify(labels), report ? JSON.stringify(report) : null]);
    await client.query(DELETE_LABEL_TERMS, [target.assetId]);
    if (terms.length > 0) {
      await client.query(INSERT_LABEL_TERMS, [target.assetId, terms.map((t) => t.term), terms.map((t) => t.score), terms.map((t) => t.count)]);
    }
    if (labels.description) await client.query(INSERT_DESCRIPTION_TERMS, [target.assetId, labels.description, DESCRIPTION_WORD_SCORE]);
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
