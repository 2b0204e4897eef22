import type { z } from "zod";
import { config } from "@/lib/config";
import { recognizeText } from "@/lib/media/ocr";

/** OCR of an image for the text path; a failure is reported (its categories become unavailable), not thrown. */
export async function recognizeImageText(image: Buffer): Promise<{ text: string | null; failed: boolean; notes: z.core.util.JSONType }> {
  try {
    const result = await recognizeText(image, { timeoutMs: config().classifiers.timeoutMs });
    const text = result.text.trim();
    return { text: text || null, failed: false, notes: { engine: result.engine, confidence: result.confidence, characters: text.length } };
  } catch (error) {
    return { text: null, failed: true, notes: { error: error instanceof Error ? error.message : String(error) } };
  }
}
