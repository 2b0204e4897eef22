import type { z } from "zod";
import { config } from "@/lib/core/config";
import { recognizeText } from "@/lib/media/ocr";
import { MAX_EXTRACTED_TEXT_CHARS } from "./content";
import { errorMessage } from "@/lib/core/errors";
import { classifyPart, unavailablePart, type Part } from "./parts";

/**
 * The text in an image, through the text path: a classified part (null when the image has no
 * text), or — when OCR failed — a part whose text categories are `unavailable`. Every caller
 * (images, video frames) treats a failure the same way.
 */
export async function ocrTextPart(image: Buffer, label: string): Promise<{ text: string | null; part: Part | null; notes: z.core.util.JSONType }> {
  try {
    const result = await recognizeText(image, { timeoutMs: config().classifiers.timeoutMs });
    const text = result.text.trim().slice(0, MAX_EXTRACTED_TEXT_CHARS) || null;
    const notes = { engine: result.engine, confidence: result.confidence, characters: text?.length ?? 0 };
    return { text, part: text ? await classifyPart(label, { kind: "text", text }) : null, notes };
  } catch (error) {
    const notes = { error: errorMessage(error) };
    return { text: null, part: unavailablePart(label, "text", notes), notes };
  }
}
