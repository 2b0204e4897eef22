import { z } from "zod";
import { text, uploadContentString, uuid, webUrl } from "@/lib/core/schemas";
import { contentDispositionHeader, failsWith } from "@/lib/http/headers";

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

function exactlyOneForm(value: Record<string, unknown>, ctx: z.RefinementCtx) {
  const present = CONTENT_FORMS.filter((f) => value[f] !== undefined);
  if (present.length !== 1) {
    ctx.addIssue({
      code: "custom",
      message: `exactly one of ${CONTENT_FORMS.join(", ")} is required${present.length ? ` (got ${present.join(", ")})` : ""}`,
    });
  }
}

export const inlineContent = z.strictObject(contentFields).superRefine(exactlyOneForm);
export type InlineContent = z.infer<typeof inlineContent>;

export const partContent = z
  .strictObject({
    ...contentFields,
    partNumber: z.number().int().min(1).max(10_000).default(1),
    isFinal: z.boolean().default(false),
  })
  .superRefine(exactlyOneForm);
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
 * One strict object (not a union) so that errors name the offending field.
 */
export const createAssetBody = z
  .strictObject({
    ...commonCreateFields,
    content: inlineContent.optional().describe("Variant A: inline content"),
    part: partContent.optional().describe("Variant B: first part of a multipart upload"),
    sizeInBytes: z.number().int().min(1).max(MAX_SAFE).optional().describe("Variant B: size of this part"),
    totalSizeInBytes: z.number().int().min(1).max(MAX_SAFE).optional().describe("Variant B: size of the whole file"),
    url: webUrl().max(2048).optional().describe("Variant C: remote URL to fetch"),
  })
  .superRefine((value, ctx) => {
    const variants = (["content", "part", "url"] as const).filter((v) => value[v] !== undefined);
    if (variants.length !== 1) {
      ctx.addIssue({ code: "custom", message: "exactly one of content, part or url is required" });
    }
    if (value.part === undefined) {
      for (const field of ["sizeInBytes", "totalSizeInBytes"] as const) {
        if (value[field] !== undefined) ctx.addIssue({ code: "custom", path: [field], message: "only allowed with part" });
      }
    }
  });
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
export const nextPartContent = z
  .strictObject({
    ...contentFields,
    partNumber: z.number().int().min(1).max(10_000).optional(),
    isFinal: z.boolean().default(false),
  })
  .superRefine(exactlyOneForm);

export const partBody = z.strictObject({ part: nextPartContent });
export type PartBody = z.output<typeof partBody>;

export const patchAssetBody = z
  .strictObject({
    name: assetName.optional(),
    description: description.optional(),
    visibility: visibility.optional(),
    metadata: metadata.optional(),
    tags: tags.optional(),
    externalId: externalId.optional(),
    externalUrl: externalUrl.optional(),
  })
  .refine((v) => Object.keys(v).length > 0, { message: "at least one field is required" });
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

/** The Asset object as responses carry it. */
export const assetSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    sizeInBytes: z.number().nullable(),
    userId: z.string().nullable(),
    parentId: z.string().nullable(),
    folderId: z.string().nullable(),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
    checksums: z.object({ sha256: z.string(), md5: z.string() }).nullable(),
    imageData: z
      .object({ width: z.number(), height: z.number(), format: z.string(), hasAlpha: z.boolean(), pages: z.number() })
      .nullable(),
    documentData: z.object({}).passthrough().nullable(),
    name: z.string(),
    fileFormat: z.string().nullable(),
    fileExtension: z.string().nullable(),
    description: z.string().nullable(),
    externalId: z.string().nullable(),
    externalUrl: z.string().nullable(),
    previewImage: z.object({}).passthrough().nullable(),
    storageId: z.string().nullable(),
    uploadPartsReceived: z.number().int().nullable(),
    type: z.enum(ASSET_TYPES),
    metadata: z.array(metadataItem).nullable(),
    tags: z.array(z.string()).nullable(),
    report: z.object({}).passthrough().nullable(),
    moderationAction: z.enum(MODERATION_ACTIONS).nullable(),
    status: z.enum(ASSET_STATUSES),
    safetyHold: z.object({ reason: z.string(), source: z.string(), heldAt: z.number() }).nullable(),
    rejectionNote: z.string().nullable(),
    extractedText: z.string().nullable(),
    processingOptions: processingOptions,
    visibility: z.enum(VISIBILITIES).nullable(),
    storageDeletedAt: z.number().nullable(),
  })
  .meta({ id: "Asset" });

export const assetPageSchema = z.object({ items: z.array(assetSchema), total: z.number().int(), hasMore: z.boolean() });
