import { z } from "zod";

/**
 * The object-valued fields of the Asset (stored as JSON columns), as responses carry them. Their
 * writers are typed with these schemas (ingest, processing outcome, safety holds, the pipeline's
 * hash-list holds), so a field cannot be stored and served without being documented here.
 */

export const checksumsSchema = z
  .object({ sha256: z.string().describe("Lower-case hex"), md5: z.string().describe("Lower-case hex") })
  .meta({ id: "Checksums", description: "Digests of the stored bytes" });
export type Checksums = z.infer<typeof checksumsSchema>;

export const imageDataSchema = z
  .object({
    width: z.number().int().describe("Of one frame as stored, before EXIF rotation"),
    height: z.number().int().describe("Of one frame as stored, before EXIF rotation"),
    format: z.string().optional().describe('sharp\'s format name ("jpeg", "png", "webp", "gif", "svg", "heif", ...); absent on images extracted from a document'),
    hasAlpha: z.boolean().optional().describe("Absent on images extracted from a document"),
    pages: z.number().int().min(1).optional().describe("Frames (pages) in the file; absent on images extracted from a document"),
    orientation: z.number().int().min(1).max(8).optional().describe("EXIF orientation, when the image has one"),
  })
  .meta({ id: "ImageData", description: "Read from the image header (no pixel decoding)" });
export type ImageData = z.infer<typeof imageDataSchema>;

export const PREVIEW_SOURCES = ["image", "pdf-page", "video-frame", "website"] as const;

export const previewImageSchema = z
  .object({
    fileFormat: z.literal("image/webp"),
    width: z.number().int(),
    height: z.number().int(),
    sizeInBytes: z.number().int(),
    source: z.enum(PREVIEW_SOURCES).describe("What it shows: the image itself, a PDF's first page, a video's poster frame, a card of a web page"),
    generation: z.number().int().describe("The processing run that made it: changes (with the bytes) when the asset is reprocessed"),
  })
  .meta({ id: "PreviewImage", description: "A WebP served at {cdn_url}/assets/{projectId}/{assetId}/preview" });
export type PreviewImage = z.infer<typeof previewImageSchema>;

export const objectLabelSchema = z
  .object({
    label: z.string().describe("A COCO object class as the detector names it: person, car, dog, cell phone, …"),
    confidence: z.number().min(0).max(1).describe("The detector's highest score for it"),
    count: z.number().int().min(1).describe("How many were detected (in a video: the most in one frame)"),
  })
  .meta({ id: "ObjectLabel" });

export const colourLabelSchema = z
  .object({
    name: z.string().describe("red, orange, yellow, green, blue, purple, pink, brown, black, white or gray"),
    fraction: z.number().min(0).max(1).describe("Share of the pixels (in a video: the mean over the frames)"),
  })
  .meta({ id: "ColourLabel" });

/** What one image (or one video frame) shows, as the labelling step saw it. */
export const frameLabelsSchema = z.object({
  objects: z.array(objectLabelSchema).describe("Most confident first"),
  colours: z.array(colourLabelSchema).describe("Dominant named colours, largest share first"),
  faces: z.number().int().min(0).describe("Faces detected (in a video: the most in one frame)"),
});
export type FrameLabels = z.infer<typeof frameLabelsSchema>;

export const imageLabelsSchema = frameLabelsSchema
  .extend({
    description: z
      .string()
      .nullable()
      .describe(
        "One sentence about the image from the configured describer (SIEVE_IMAGE_LABEL_PROVIDERS=detector,describer: a vision-language model); null without one, and for videos",
      ),
    model: z.string().describe("The models that labelled it, with their versions"),
    labeledAt: z.number().int().describe("When, ms since epoch"),
  })
  .meta({
    id: "ImageLabels",
    description:
      "What an image or a video's sampled frames show: detected objects with counts, dominant colours and faces. Computed after " +
      "the moderation decision (it does not delay it) for images and videos; null until then, for other types, and when labelling failed.",
  });
export type ImageLabels = z.infer<typeof imageLabelsSchema>;

/** Documents record no properties yet; the field is kept for the spec's Asset shape. */
export const documentDataSchema = z.strictObject({}).describe("No document properties are recorded yet: always null");

const heldAt = z.number().int().describe("When the hold was placed, ms since epoch");

export const operatorHoldSchema = z
  .object({ source: z.literal("admin-cli"), reason: z.string(), heldAt })
  .meta({ id: "OperatorSafetyHold", description: "Placed by an operator (npm run admin -- hold-asset)" });

export const hashListHoldSchema = z
  .object({
    source: z.literal("hash-list"),
    reason: z.string(),
    list: z.string().describe("The hash list's name"),
    label: z.string().nullable().describe("The matched entry's label"),
    hash: z.string().describe("The asset's perceptual hash that matched (pHash or dHash, hex)"),
    distance: z.number().int().min(0).describe("Hamming distance to the listed hash"),
    where: z.string().describe('Where in the asset: "image", a video frame time, or a document image'),
    heldAt,
  })
  .meta({ id: "HashListSafetyHold", description: "Placed by the moderation pipeline when a perceptual hash matched a hash list with the hold action" });
/** What the pipeline finds; `heldAt` is added when the hold is written. */
export type HashListHoldFinding = Omit<z.infer<typeof hashListHoldSchema>, "heldAt">;

export const safetyHoldSchema = z
  .discriminatedUnion("source", [operatorHoldSchema, hashListHoldSchema])
  .meta({ id: "SafetyHold", description: "Delivery restriction for suspected illegal content; changes answer 423 asset/safety-held" });
export type SafetyHold = z.infer<typeof safetyHoldSchema>;
export type OperatorHold = z.infer<typeof operatorHoldSchema>;
