import type { z } from "zod";
import { config } from "@/lib/core/config";
import { imageLabelsFrom } from "../image/nsfw";
import { combineProviders, providerNotesJson, type CombinedResult } from "../providers/combine";
import { configuredProviders } from "../providers/configured";
import type { MediaKind, ProviderInput } from "../providers/types";
import type { CategoryJudgements } from "../report";

/** One classified part of an asset (its text, an image, a frame, a speech segment…). */
export interface Part {
  label: string;
  judgements: CategoryJudgements;
  notes: z.core.util.JSONType;
  combined?: CombinedResult;
}

export async function classifyPart(label: string, input: ProviderInput): Promise<Part> {
  const combined = await combineProviders(configuredProviders(), input, { timeoutMs: config().classifiers.timeoutMs });
  return { label, judgements: combined.categories, notes: { part: label, providers: providerNotesJson(combined.providers) }, combined };
}

/** A part whose input could not be obtained (OCR, transcription or extraction failed): unavailable. */
export function unavailablePart(label: string, kind: MediaKind, notes: z.core.util.JSONType): Part {
  const judgements: CategoryJudgements = {};
  for (const category of new Set(configuredProviders().flatMap((p) => p.supports(kind)))) {
    judgements[category] = { status: "not-evaluated", reason: "unavailable" };
  }
  return { label, judgements, notes: { part: label, unavailable: notes } };
}

/** Search labels the image model produced for an image part. */
export function labelsOf(part: Part): string[] {
  const nsfw = part.combined?.providers.find((p) => p.id === "nsfwjs");
  return nsfw?.outcome.status === "ok" ? imageLabelsFrom(nsfw.outcome.details) : [];
}
