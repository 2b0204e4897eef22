import { z } from "zod";
import { jsonSchemaOf, jsonValue, text } from "@/lib/core/schemas";

/**
 * Lens definitions: this module validates them, lib/lenses stores and versions them, lib/cdn applies
 * them. A definition the CDN could not apply is refused here, at definition time, rather than
 * failing later on every request.
 */
export const LENS_TYPES = ["image", "video", "audio", "document", "website"] as const;

export const lensIdentifier = text()
  .min(1)
  .max(50)
  .regex(/^[a-z0-9-]+$/, "must contain only lowercase letters, numbers and hyphens");

/**
 * Options of `imageTransform`, the transform the spec names (fit, width, format). The one source of
 * option validation: lens definitions and the CDN's direct selector (lib/cdn/selector.ts) both use it.
 */
export const IMAGE_FORMATS = ["webp", "avif", "jpeg", "png", "gif"] as const;
export const FITS = ["cover", "contain", "fill", "inside", "outside"] as const;

export const imageTransformOptions = z.strictObject({
  fit: z.enum(FITS).optional(),
  width: z.number().int().min(1).max(8192).optional(),
  height: z.number().int().min(1).max(8192).optional(),
  format: z.enum(IMAGE_FORMATS).optional(),
  quality: z.number().int().min(1).max(100).optional(),
});

/** Transform types the CDN applies (lib/cdn/transform.ts); any other type is refused. */
export const LENS_TRANSFORM_TYPES = ["imageTransform"] as const;

/**
 * A transform is checked in two steps: its options are free JSON (storable text, as every client
 * value) until its type says which option schema applies. The document states the outcome: the
 * supported types and their option schema.
 */
export const lensTransform = z
  .strictObject({ type: text().min(1).max(100), options: jsonValue() })
  .superRefine((transform, ctx) => {
    if (transform.options === undefined) ctx.addIssue({ code: "custom", path: ["options"], message: "is required" });
    if (transform.type !== "imageTransform") {
      const message = `unsupported transform type ${JSON.stringify(transform.type)}; supported transform types: ${LENS_TRANSFORM_TYPES.join(", ")}`;
      ctx.addIssue({ code: "custom", path: ["type"], message });
      return;
    }
    const result = imageTransformOptions.safeParse(transform.options);
    for (const issue of result.error?.issues ?? []) {
      ctx.addIssue({ code: "custom", path: ["options", ...issue.path.map(String)], message: issue.message });
    }
  })
  .meta({
    properties: { type: { type: "string", enum: [...LENS_TRANSFORM_TYPES] }, options: jsonSchemaOf(imageTransformOptions) },
    required: ["type", "options"],
  });

// An audio asset has no image (no poster, no preview image) for the CDN to transform.
const AUDIO_HAS_NO_IMAGE = "audio assets have no image to transform (imageTransform needs a lens of another type)";

export const ensureLensBody = z
  .strictObject({
    identifier: lensIdentifier,
    name: text().min(1).max(200),
    description: text().max(2000).nullable().optional(),
    type: z.enum(LENS_TYPES),
    active: z.boolean(),
    transforms: z.array(lensTransform).max(20).nullable().optional(),
    version: z.number().int().min(1).max(2_147_483_647),
  })
  .superRefine((lens, ctx) => {
    if (lens.type !== "audio") return;
    lens.transforms?.forEach((transform, index) => {
      if (transform.type !== "imageTransform") return;
      ctx.addIssue({ code: "custom", path: ["transforms", index, "type"], message: AUDIO_HAS_NO_IMAGE });
    });
  })
  // The same rule for the document.
  .meta({
    if: { properties: { type: { const: "audio" } }, required: ["type"] },
    then: { properties: { transforms: { items: { not: { properties: { type: { const: "imageTransform" } }, required: ["type"] } } } } },
  });
export type EnsureLensInput = z.infer<typeof ensureLensBody>;

export const ensureLensesBody = z
  .strictObject({ lenses: z.array(ensureLensBody).min(1).max(100) })
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    body.lenses.forEach((lens, index) => {
      if (seen.has(lens.identifier)) {
        ctx.addIssue({ code: "custom", path: ["lenses", index, "identifier"], message: `"${lens.identifier}" appears twice` });
      }
      seen.add(lens.identifier);
    });
  });

/** The Lens object as responses carry it (serializeLens returns `ApiLens`). */
export const lensSchema = z
  .object({
    id: z.string(),
    projectId: z.string().nullable(),
    userId: z.string().nullable(),
    version: z.number().int(),
    identifier: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    type: z.enum(LENS_TYPES),
    active: z.boolean(),
    transforms: z
      .array(z.object({ type: z.string(), options: z.unknown().describe("As sent; for imageTransform: fit, width, height, format, quality") }))
      .nullable(),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
  })
  .meta({ id: "Lens" });
export type ApiLens = z.output<typeof lensSchema>;
export type LensType = (typeof LENS_TYPES)[number];
