import { draftColumns, type AssetDraft, type StoredContentFacts } from "@/lib/assets/draft";
import { uploadedEventFor } from "@/lib/assets/events";
import { dbAssetType } from "@/lib/assets/serialize";
import { sqlPool } from "@/lib/db/client";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import { EVENT_TYPES } from "@/lib/events/catalogue";
import { processOutboxRow } from "@/lib/moderation/pipeline/outbox";

/**
 * The hot path of every upload, as one SQL statement (one implicit transaction, one round trip):
 * insert the asset, record its `asset.uploaded` event and put its processing event in the pipeline
 * outbox. Everything else about assets goes
 * through Prisma; this path is SQL because it runs on every upload and a Prisma query costs about
 * 1 ms of CPU here (see bench/). The caller holds an upload unit (lib/usage/allowance.ts).
 */
const UPLOADED = EVENT_TYPES["asset.uploaded"];

const INSERT_UPLOADED_ASSET = `
WITH asset AS (
  INSERT INTO assets (id, project_id, folder_id, name, description, external_id, external_url, source_url, type, status,
                      file_format, file_extension, size_in_bytes, checksums, image_data, storage_id, metadata,
                      processing_options, queued, visibility, created_at, updated_at)
  VALUES ($1::uuid, $2::uuid, $3::uuid, $4, $5, $6, $7, $8, $9::asset_type, 'pending', $10, $11, $12::bigint,
          $13::jsonb, $14::jsonb, $15, $16::jsonb, $17::jsonb, $18, $19::visibility, $20, $20)
  RETURNING id
), outbox AS (
  INSERT INTO pipeline_outbox (event_id, name, data) SELECT $24, $25, $26::jsonb FROM asset
)
INSERT INTO events (id, project_id, type, severity, title, asset_id, asset, facts, notify, created_at, updated_at)
SELECT gen_random_uuid(), $2::uuid, 'asset.uploaded', '${UPLOADED.severity}', $21, asset.id, $22::jsonb, $23::jsonb,
       ${UPLOADED.notify}, $20, $20
  FROM asset`;

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
    report: null,
    flagged: null,
    moderationAction: null,
    safetyHold: null,
    rejectionNote: null,
    extractedText: null,
    processingGeneration: 0,
    processingRequestedAt: null,
    derivedKey: null,
    createdAt: now,
    updatedAt: now,
  };
  const event = uploadedEventFor(row);
  const outbox = processOutboxRow(row);
  const values = [
    row.id, row.projectId, row.folderId, row.name, row.description, row.externalId, row.externalUrl, row.sourceUrl,
    facts.type, row.fileFormat, row.fileExtension, String(facts.sizeInBytes), json(row.checksums), json(row.imageData),
    row.storageId, json(row.metadata), json(row.processingOptions), row.queued, row.visibility, now, event.title,
    json(event.asset), json(event.facts), outbox.eventId, outbox.name, json(outbox.data),
  ];
  await sqlPool().query({ name: "sieve-insert-uploaded-asset", text: INSERT_UPLOADED_ASSET, values });
  return row;
}
