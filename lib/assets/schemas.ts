import { z } from "zod";
import { atLeastOneField, exactlyOneOf, onlyWith, text, uploadContentString, uuid, webUrl } from "@/lib/core/schemas";
import { contentDispositionHeader, failsWith } from "@/lib/http/headers";
import { checksumsSchema, documentDataSchema, imageDataSchema, imageLabelsSchema, previewImageSchema, safetyHoldSchema } from "@/lib/assets/field-schemas";
import { reportSchema } from "@/lib/assets/report-schema";

// The engine's door to the report's shape and to the hold it finds (lib/moderation may import this
// file, not the ones beside it).
export * from "@/lib/assets/report-schema";
export type { HashListHoldFinding } from "@/lib/assets/field-schemas";

/** Validation schemas for the asset endpoints; they also generate the OpenAPI document. */

export const ASSET_TYPES = ["image", "video", "audio", "plaintext-document", "multimedia-document", "website", "file"] as const;
export const ASSET_STATUSES = ["uploading", "pending", "approved", "rejected", "error"] as const;
export const MODERATION_ACTIONS = ["ignore", "alert", "hide", "purge"] as const;
export const VISIBILITIES = ["public", "private"] as const;

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

export const byte = z.number().int().min(0).max(255);
export { uuid };

export const assetName = text().min(1).max(255);
export const description = text().max(5000).nullable();
export const externalId = text()
  .min(1)
  .max(255)
  .regex(/^[^/\\\u0000-\u001f]+$/, "must not contain slashes or control characters")
  .nullable();
export const externalUrl = webUrl().max(2048).nullable();
export const metadataItem = z.strictObject({
  id: text().min(1).max(100),
  value: z.union([text().max(10_000), z.number(), z.boolean(), z.null()]),
});
export type MetadataItem = z.infer<typeof metadataItem>;
export const metadata = z.array(metadataItem).max(100).nullable();
export const tags = z.array(text().min(1).max(100)).max(100).nullable();
export const visibility = z.enum(VISIBILITIES).nullable();

export const processingOptions = z
  .strictObject({
    keepContentAfterProcessing: z.boolean().nullable().optional(),
    flaggedContentPolicy: z.strictObject({ action: z.enum(MODERATION_ACTIONS) }).nullable().optional(),
    image: z.strictObject({ ocrEnabled: z.boolean().nullable().optional() }).nullable().optional(),
  })
  .nullable();
export type ProcessingOptions = z.infer<typeof processingOptions>;

const contentTypeField = text().min(1).max(255).describe("Content (MIME) type of the bytes, e.g. image/png");

/** `buffer`: a byte array, Node's `Buffer.toJSON()` form `{type: "Buffer", data}`, or base64 text. */
const bufferValue = z.union([z.array(byte), z.strictObject({ type: z.literal("Buffer"), data: z.array(byte) }), uploadContentString()]);
/** `data`: a `data:` URL, base64 text, or a byte array. */
const dataValue = z.union([uploadContentString(), z.array(byte)]);

const CONTENT_FORMS = ["plainText", "base64", "uint8Array", "buffer", "data"] as const;

const contentFields = {
  plainText: uploadContentString().optional().describe("Text content (UTF-8)"),
  base64: uploadContentString().optional().describe("Base64-encoded bytes"),
  uint8Array: z.array(byte).optional().describe("Bytes as integers 0 to 255"),
  buffer: bufferValue.optional().describe("Bytes: an integer array, {type:'Buffer',data:[...]} or base64 text"),
  data: dataValue.optional().describe("Bytes: a data: URL, base64 text or an integer array"),
  type: contentTypeField,
};

export const inlineContent = exactlyOneOf(z.strictObject(contentFields), CONTENT_FORMS);
export type InlineContent = z.infer<typeof inlineContent>;

export const partContent = exactlyOneOf(
  z.strictObject({
    ...contentFields,
    partNumber: z.number().int().min(1).max(10_000).default(1),
    isFinal: z.boolean().default(false),
  }),
  CONTENT_FORMS,
);
export type PartContent = z.infer<typeof partContent>;

const commonCreateFields = {
  name: assetName,
  description: description.optional(),
  visibility: visibility.optional(),
  metadata: metadata.optional(),
  externalId: externalId.optional(),
  externalUrl: externalUrl.optional(),
  folderId: uuid.nullable().optional(),
  processingOptions: processingOptions.optional(),
};

/**
 * Create Asset: one body with three variants told apart by `content` (A), `part` (B) or `url` (C).
 * One strict object (not a union) so that errors name the offending field; the document states the
 * variants as `oneOf` and the part-only fields as `dependentRequired` (lib/core/schemas.ts).
 */
export const createAssetBody = exactlyOneOf(
  onlyWith(
    z.strictObject({
      ...commonCreateFields,
      content: inlineContent.optional().describe("Variant A: inline content"),
      part: partContent.optional().describe("Variant B: first part of a multipart upload"),
      sizeInBytes: z.number().int().min(1).max(MAX_SAFE).optional().describe("Variant B: size of this part"),
      totalSizeInBytes: z.number().int().min(1).max(MAX_SAFE).optional().describe("Variant B: size of the whole file"),
      url: webUrl().max(2048).optional().describe("Variant C: remote URL to fetch"),
    }),
    ["sizeInBytes", "totalSizeInBytes"],
    "part",
  ),
  ["content", "part", "url"],
);
export type CreateAssetBody = z.infer<typeof createAssetBody>;
export type AssetCommonFields = Pick<CreateAssetBody, keyof typeof commonCreateFields>;

export const booleanQuery = z
  .enum(["true", "false", "1", "0"])
  .transform((v) => v === "true" || v === "1");

export const queueQuery = z.strictObject({
  queue: booleanQuery.optional().describe("true queues classification; false (default) waits for the decision"),
});

/** Query of the raw-bytes endpoints: the JSON fields that fit in a query string. */
const rawUploadQueryFields = {
  queue: booleanQuery.optional(),
  name: assetName.optional().describe("Asset name; defaults to the Content-Disposition filename, then 'upload'"),
  description: text().max(5000).optional(),
  visibility: z.enum(VISIBILITIES).optional(),
  externalId: externalId.unwrap().optional(),
  externalUrl: webUrl().max(2048).optional(),
  folderId: uuid.optional(),
  keepContentAfterProcessing: booleanQuery.optional(),
  flaggedContentPolicy: z.enum(MODERATION_ACTIONS).optional().describe("processingOptions.flaggedContentPolicy.action"),
  ocrEnabled: booleanQuery.optional().describe("processingOptions.image.ocrEnabled"),
};
export const rawUploadQuery = z.strictObject(rawUploadQueryFields);
export type RawUploadQuery = z.infer<typeof rawUploadQuery>;

const intQuery = (min: number) => z.coerce.number().int().min(min).max(MAX_SAFE);

export const multipartStartQuery = z.strictObject({
  ...rawUploadQueryFields,
  partNumber: intQuery(1).optional().describe("Must be 1 (default)"),
  isFinal: booleanQuery.optional().describe("true when this first part is the whole file"),
  totalSizeInBytes: intQuery(1).optional(),
});
export type MultipartStartQuery = z.infer<typeof multipartStartQuery>;

export const partQuery = z.strictObject({
  partNumber: intQuery(1).optional().describe("Raw parts: the part number (default: next part)"),
  isFinal: booleanQuery.optional().describe("Raw parts: true on the last part"),
});
export type PartQuery = z.output<typeof partQuery>;

/** Headers every raw-bytes request needs; `kind` is the X-Service-Upload value the endpoint takes. */
export function rawBytesHeaders<K extends "content" | "part">(kind: K) {
  return z.object({
    "x-service-upload": failsWith(
      text().trim().toLowerCase().pipe(z.literal(kind)).describe(`Must be \`${kind}\`.`),
      "upload/missing-header",
      `This endpoint needs the header X-Service-Upload: ${kind}.`,
    ),
    "content-type": failsWith(
      text().min(1).describe("Content type of the bytes."),
      "upload/missing-header",
      "The Content-Type header (the file's type) is required.",
    ),
  });
}
export type RawBytesHeaders = z.output<ReturnType<typeof rawBytesHeaders>>;

/** Headers of a raw upload that creates an asset: the file name may come with the bytes. */
export function rawUploadHeaders<K extends "content" | "part">(kind: K) {
  return rawBytesHeaders(kind).extend({
    "content-disposition": contentDispositionHeader.describe("`attachment; filename=...` names the asset when `name` is absent."),
  });
}
export type RawUploadHeaders = z.output<ReturnType<typeof rawUploadHeaders>>;

/** A later part: without `partNumber` it is the next part (as for raw parts), never a silent re-send of part 1. */
export const nextPartContent = exactlyOneOf(
  z.strictObject({
    ...contentFields,
    partNumber: z.number().int().min(1).max(10_000).optional(),
    isFinal: z.boolean().default(false),
  }),
  CONTENT_FORMS,
);

export const partBody = z.strictObject({ part: nextPartContent });
export type PartBody = z.output<typeof partBody>;

export const patchAssetBody = atLeastOneField(
  z.strictObject({
    name: assetName.optional(),
    description: description.optional(),
    visibility: visibility.optional(),
    metadata: metadata.optional(),
    tags: tags.optional(),
    externalId: externalId.optional(),
    externalUrl: externalUrl.optional(),
  }),
);
export type PatchAssetBody = z.infer<typeof patchAssetBody>;

export const moveAssetBody = z.strictObject({ folderId: uuid.nullable() });

export const listAssetsQuery = z.strictObject({
  pageIndex: intQuery(0).default(0),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
  filter: text().max(2000).optional().describe("RSQL filter; see docs/filter-grammar.md"),
  sort: z
    .enum(["createdAt", "-createdAt", "updatedAt", "-updatedAt", "name", "-name", "sizeInBytes", "-sizeInBytes"])
    .default("-createdAt")
    .describe("Sort field; a leading '-' sorts descending"),
});
export type ListAssetsQuery = z.infer<typeof listAssetsQuery>;

export const childrenQuery = z.strictObject({
  pageIndex: intQuery(0).default(0),
  pageSize: z.coerce.number().int().min(1).max(100).default(100),
});

/**
 * The Asset object as responses carry it: every field present, `null` when unset. The serializer
 * (lib/assets/serialize.ts) returns `ApiAsset`, this schema's type, so a field it sends must be
 * declared here, and the OpenAPI document is generated from it.
 */
export const assetSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    sizeInBytes: z.number().int().nullable().describe("Stored bytes; null while a multipart upload is in progress"),
    userId: z.string().nullable(),
    parentId: z.string().nullable().describe("The asset this one was extracted from; null for uploads"),
    folderId: z.string().nullable(),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
    checksums: checksumsSchema.nullable(),
    imageData: imageDataSchema.nullable().describe("Images only"),
    documentData: documentDataSchema.nullable(),
    name: z.string(),
    fileFormat: z.string().nullable().describe("MIME type of the stored content"),
    fileExtension: z.string().nullable(),
    description: z.string().nullable(),
    externalId: z.string().nullable(),
    externalUrl: z.string().nullable(),
    previewImage: previewImageSchema.nullable(),
    storageId: z.string().nullable().describe("Null when nothing is stored"),
    uploadPartsReceived: z.number().int().nullable(),
    type: z.enum(ASSET_TYPES),
    metadata: z.array(metadataItem).nullable(),
    tags: z.array(z.string()).describe("[] when the asset has none (the spec allows null; Sieve always sends an array)"),
    report: reportSchema.nullable().describe("Set once classification finishes"),
    moderationAction: z.enum(MODERATION_ACTIONS).nullable(),
    status: z.enum(ASSET_STATUSES),
    safetyHold: safetyHoldSchema.nullable(),
    rejectionNote: z.string().nullable(),
    extractedText: z.string().nullable(),
    imageLabels: imageLabelsSchema.nullable(),
    processingOptions: processingOptions,
    visibility: z.enum(VISIBILITIES).nullable(),
    storageDeletedAt: z.number().int().nullable(),
  })
  .meta({ id: "Asset" });
export type ApiAsset = z.output<typeof assetSchema>;

export const assetPageSchema = z.object({ items: z.array(assetSchema), total: z.number().int(), hasMore: z.boolean() });
export type ApiAssetPage = z.output<typeof assetPageSchema>;
