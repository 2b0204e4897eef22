import { z } from "zod";
import { jsonValue, text } from "@/lib/core/schemas";

/** Lens definitions. The CDN (a later release) applies them; this module stores and versions them. */
export const LENS_TYPES = ["image", "video", "audio", "document", "website"] as const;

export const lensIdentifier = text()
  .min(1)
  .max(50)
  .regex(/^[a-z0-9-]+$/, "must contain only lowercase letters, numbers and hyphens");

/** Options of `imageTransform`, the transform the spec names (fit, width, format). */
export const imageTransformOptions = z.strictObject({
  fit: z.enum(["cover", "contain", "fill", "inside", "outside"]).optional(),
  width: z.number().int().min(1).max(8192).optional(),
  height: z.number().int().min(1).max(8192).optional(),
  format: z.enum(["webp", "avif", "jpeg", "png", "gif"]).optional(),
  quality: z.number().int().min(1).max(100).optional(),
});

export const lensTransform = z
  .strictObject({ type: text().min(1).max(100), options: jsonValue() })
  .superRefine((transform, ctx) => {
    if (transform.options === undefined) ctx.addIssue({ code: "custom", path: ["options"], message: "is required" });
    if (transform.type !== "imageTransform") return;
    const result = imageTransformOptions.safeParse(transform.options);
    for (const issue of result.error?.issues ?? []) {
      ctx.addIssue({ code: "custom", path: ["options", ...issue.path.map(String)], message: issue.message });
    }
  });

export const ensureLensBody = z.strictObject({
  identifier: lensIdentifier,
  name: text().min(1).max(200),
  description: text().max(2000).nullable().optional(),
  type: z.enum(LENS_TYPES),
  active: z.boolean(),
  transforms: z.array(lensTransform).max(20).nullable().optional(),
  version: z.number().int().min(1).max(2_147_483_647),
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

export const lensSchema = z.object({
  id: z.string(),
  projectId: z.string().nullable(),
  userId: z.string().nullable(),
  version: z.number().int(),
  identifier: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  type: z.enum(LENS_TYPES),
  active: z.boolean(),
  transforms: z.array(z.object({ type: z.string(), options: z.unknown() })).nullable(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});
