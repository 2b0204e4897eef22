import { draftColumns, type AssetDraft, type StoredContentFacts } from "@/lib/assets/draft";
import { uploadedEventFor } from "@/lib/assets/events";
import { dbAssetType } from "@/lib/assets/serialize";
import { sqlPool } from "@/lib/db/client";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import { eventInsertSql, eventValues } from "@/lib/events/record";
import { outboxInsertSql, outboxValues } from "@/lib/jobs/outbox";
import { FIRST_GENERATION, processingRequest } from "@/lib/assets/processing/request";

/**
 * The hot path of every upload, as one SQL statement (one implicit transaction, one round trip):
 * insert the asset, record its `asset.uploaded` event (lib/events owns that INSERT) and put its
 * processing request in the job outbox (lib/jobs owns that one). Everything else about assets goes
 * through Prisma; this path is SQL because it runs on every upload and a Prisma query costs about
 * 1 ms of CPU here (see bench/). The caller holds an upload unit (lib/usage/allowance.ts).
 */
export const INSERT_UPLOADED_ASSET = `
WITH asset AS (
  INSERT INTO assets (id, project_id, folder_id, name, description, external_id, external_url, source_url, type, status,
                      file_format, file_extension, size_in_bytes, checksums, image_data, storage_id, metadata,
                      processing_options, queued, visibility, created_at, updated_at)
  VALUES ($1::uuid, $2::uuid, $3::uuid, $4, $5, $6, $7, $8, $9::asset_type, 'pending', $10, $11, $12::bigint,
          $13::jsonb, $14::jsonb, $15, $16::jsonb, $17::jsonb, $18, $19::visibility, $20, $20)
  RETURNING id
), outbox AS (${outboxInsertSql(21)})
${eventInsertSql(25)}`;

const json = (value: unknown) => (value === undefined || value === null ? null : JSON.stringify(value));

export async function insertUploadedAsset(draft: AssetDraft, facts: StoredContentFacts): Promise<AssetRow> {
  const now = new Date();
  const f = draft.fields;
  const row: AssetRow = {
    ...draftColumns(draft),
    metadata: f.metadata ?? null,
    processingOptions: f.processingOptions ?? null,
    id: facts.id,
    userId: null,
    parentId: null,
    type: dbAssetType(facts.type),
    status: "pending",
    fileFormat: facts.fileFormat,
    fileExtension: facts.fileExtension,
    sizeInBytes: facts.sizeInBytes,
    checksums: facts.checksums,
    imageData: (facts.imageData ?? null) as AssetRow["imageData"],
    documentData: null,
    previewImage: null,
    storageId: facts.storageId,
    storageDeletedAt: null,
    uploadPartsReceived: null,
    tags: [],
    labels: [],
    imageLabels: null,
    report: null,
    flagged: null,
    moderationAction: null,
    safetyHold: null,
    rejectionNote: null,
    reviewedAt: null,
    extractedText: null,
    processingGeneration: FIRST_GENERATION,
    processingRequestedAt: null,
    derivedKey: null,
    createdAt: now,
    updatedAt: now,
  };
  const values = [
    row.id, row.projectId, row.folderId, row.name, row.description, row.externalId, row.externalUrl, row.sourceUrl,
    facts.type, row.fileFormat, row.fileExtension, String(facts.sizeInBytes), json(row.checksums), json(row.imageData),
    row.storageId, json(row.metadata), json(row.processingOptions), row.queued, row.visibility, now,
    ...outboxValues([processingRequest(row)]),
    ...eventValues([uploadedEventFor(row)]),
  ];
  await sqlPool().query({ name: "sieve-insert-uploaded-asset", text: INSERT_UPLOADED_ASSET, values });
  return row;
}
