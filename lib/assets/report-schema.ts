import { z } from "zod";
import { frameLabelsSchema } from "@/lib/assets/field-schemas";

/**
 * The moderation report (the `report` field of an asset): the single source of its shape. The
 * moderation engine builds reports with it (lib/moderation/report.ts), the Asset response schema
 * embeds it, and the OpenAPI document is generated from it. It lives with the assets domain
 * because the report is part of the Asset; the engine reaches it through lib/assets/schemas.ts.
 *
 * Spec decisions taken here (the spec leaves them open):
 * - Required besides `categories`: `flagged`, `score` and `notes` (notes may be `null`, never absent).
 * - `media` is present only for audio and video assets (lib/moderation/report.ts `reportSchemaFor`).
 * - `score` is the highest score of the evaluated/partial categories, 0 when none was evaluated
 *   (then every category says why it was not evaluated).
 * - A segment's `endSeconds` must not be before its `startSeconds`.
 * - Objects are strict: unknown fields are rejected, so a stored report always matches this file.
 * - `notes` must be JSON (it is stored and served as-is).
 */

export const CATEGORIES = ["sexual", "violence", "self-harm", "harassment", "hate", "criminal-activity"] as const;
export type Category = (typeof CATEGORIES)[number];

export const LIKELIHOODS = ["very-unlikely", "unlikely", "possible", "likely", "very-likely"] as const;
export type Likelihood = (typeof LIKELIHOODS)[number];

export const NOT_EVALUATED_REASONS = ["not-supported", "unavailable"] as const;
export type NotEvaluatedReason = (typeof NOT_EVALUATED_REASONS)[number];

export const QUALIFIER_KEYS = [
  "nudity",
  "sexual-activity",
  "explicit-sexual-language",
  "sexual-solicitation",
  "physical-attack",
  "violent-threat",
  "violent-preparation",
  "violent-encouragement",
  "injury",
  "death",
  "graphic",
  "self-harm-thoughts",
  "self-harm-preparation",
  "self-harm-act",
  "self-harm-methods",
  "self-harm-encouragement",
  "personal-abuse",
  "targeted-intimidation",
  "harassment-threat",
  "sexual-harassment",
  "harassment-encouragement",
  "identity-abuse",
  "dehumanization",
  "identity-inferiority",
  "discriminatory-exclusion",
  "hate-threat",
  "criminal-demonstration",
  "criminal-preparation",
  "criminal-request",
  "criminal-instructions",
  "criminal-promotion",
  "historical",
  "documentary",
  "fictional",
  "support-prevention",
] as const;
export type QualifierKey = (typeof QUALIFIER_KEYS)[number];

export const SEGMENT_SOURCES = ["frame", "speech", "frame-text", "clip"] as const;
export type SegmentSource = (typeof SEGMENT_SOURCES)[number];

/** Any JSON value (stored and served as-is). */
export const jsonValueSchema = z.json().meta({ id: "JsonValue" });

const unitScore = z.number().min(0).max(1);
const likelihood = z.enum(LIKELIHOODS).meta({ id: "Likelihood" });
const reason = z.enum(NOT_EVALUATED_REASONS).describe("not-supported: no configured provider judges this for the media; unavailable: the providers that could, failed");

export const qualifierValueSchema = z
  .discriminatedUnion("status", [
    z.strictObject({ status: z.literal("evaluated"), score: unitScore, likelihood, scopeScore: unitScore.optional() }),
    z.strictObject({ status: z.literal("not-evaluated"), reason }),
  ])
  .meta({ id: "QualifierValue" });
export type QualifierValue = z.infer<typeof qualifierValueSchema>;

export const qualifiersSchema = z
  .partialRecord(z.enum(QUALIFIER_KEYS), qualifierValueSchema)
  .meta({ id: "Qualifiers", description: "Qualifier values by qualifier key; only the qualifiers a provider reported" });
export type Qualifiers = z.infer<typeof qualifiersSchema>;

const judged = { score: unitScore, likelihood, qualifiers: qualifiersSchema.optional() };
export const categoryEntrySchema = z
  .discriminatedUnion("status", [
    z.strictObject({ status: z.literal("evaluated"), ...judged }),
    z.strictObject({ status: z.literal("partial"), ...judged }).describe("Judged, but not by every provider that supports the category (some failed)"),
    z.strictObject({ status: z.literal("not-evaluated"), reason, qualifiers: qualifiersSchema.optional() }),
  ])
  .meta({ id: "CategoryEntry" });
export type CategoryEntry = z.infer<typeof categoryEntrySchema>;

export const categoriesSchema = z
  .strictObject(Object.fromEntries(CATEGORIES.map((c) => [c, categoryEntrySchema])) as Record<Category, typeof categoryEntrySchema>)
  .meta({ id: "ReportCategories" });
export type ReportCategories = z.infer<typeof categoriesSchema>;

export const segmentSchema = z
  .strictObject({
    source: z.enum(SEGMENT_SOURCES),
    startSeconds: z.number().min(0),
    endSeconds: z.number().min(0).describe("Not before startSeconds"),
    categories: categoriesSchema,
    labels: frameLabelsSchema
      .optional()
      .describe("`frame` segments only: what the frame shows (objects, colours, faces), added by the labelling step after the decision"),
  })
  .refine((s) => s.endSeconds >= s.startSeconds, { message: "endSeconds must not be before startSeconds", path: ["endSeconds"] })
  .meta({ id: "ReportSegment" });
export type Segment = z.infer<typeof segmentSchema>;

export const mediaSchema = z
  .strictObject({
    durationSeconds: z.number().gt(0),
    frameIntervalSeconds: z.number().gt(0),
    sampledFrames: z.number().int().min(0),
    audioTranscribed: z.boolean(),
    segments: z.array(segmentSchema),
  })
  .meta({ id: "ReportMedia" });
export type ReportMedia = z.infer<typeof mediaSchema>;

export const reportSchema = z
  .strictObject({
    categories: categoriesSchema,
    flagged: z.boolean(),
    score: unitScore.describe("The highest evaluated or partial score, segments included; 0 when nothing was evaluated"),
    notes: jsonValueSchema.describe("What each provider said, the rules that fired, what could not be analysed; any JSON value or null"),
    media: mediaSchema.optional().describe("Audio and video assets only"),
  })
  .meta({ id: "Report" });
export type Report = z.infer<typeof reportSchema>;
