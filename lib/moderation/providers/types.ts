import type { z } from "zod";
import type { Category, QualifierKey } from "../report";

/** The one classifier-provider interface. Providers are chosen by configuration and combined (combine.ts). */

export type MediaKind = "text" | "image" | "frame";

export type ProviderInput =
  | { kind: "text"; text: string }
  /** An image or a video frame: encoded bytes (PNG/JPEG/WebP) and their MIME type. */
  | { kind: "image" | "frame"; data: Uint8Array; mimeType: string };

export interface CategoryScore {
  /** 0..1 */
  score: number;
  /** Qualifier scores, 0..1 each. */
  qualifiers?: Partial<Record<QualifierKey, number>>;
}

export interface ProviderResult {
  /** Only the categories this provider judged for the input; never a made-up score. */
  categories: Partial<Record<Category, CategoryScore>>;
  /** What the provider wants recorded in the report notes (e.g. raw scores, rules that fired). */
  details?: z.core.util.JSONType;
}

export interface ClassifyOptions {
  /** Caller cancellation. */
  signal?: AbortSignal;
  /** The provider must give up after this many milliseconds. */
  timeoutMs: number;
}

export interface ClassifierProvider {
  readonly id: string;
  readonly version: string;
  /** Categories this provider can judge for a media kind (empty when it cannot handle the kind). */
  supports(mediaKind: MediaKind): readonly Category[];
  /** Throws (preferably a ProviderError) when it cannot classify; combine marks its categories unavailable. */
  classify(input: ProviderInput, options: ClassifyOptions): Promise<ProviderResult>;
}

export { ProviderError, type ProviderErrorCode } from "@/lib/core/provider-error";
