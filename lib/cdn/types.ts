/**
 * Shared vocabulary of the CDN (lib/cdn): what a transform step is and what a transform produces.
 * The selector grammar (selector.ts), the sharp pipeline (transform.ts), lenses and the request
 * handler all speak these types.
 */
import { FITS, IMAGE_FORMATS } from "@/lib/lenses/schemas";

// The option vocabulary is the lens definitions' (their schema validates direct selectors too).
export { FITS, IMAGE_FORMATS };
export type ImageFormat = (typeof IMAGE_FORMATS)[number];
export type Fit = (typeof FITS)[number];

/** One `imageTransform` step: the options of a direct selector or of one lens transform. */
export interface ImageTransformStep {
  width?: number;
  height?: number;
  fit?: Fit;
  format?: ImageFormat;
  quality?: number;
}

/** Bytes a transform produced, with what the response needs to describe them. */
export interface TransformedImage {
  data: Buffer;
  contentType: string;
  format: ImageFormat;
  width: number;
  height: number;
}

/** What follows `content` or `preview` in a CDN path. */
export type Selector =
  | { kind: "none" }
  | { kind: "lens"; identifier: string }
  /** `canonical` is the normalized selector (keys sorted, defaults dropped): the cache key part. */
  | { kind: "transform"; step: ImageTransformStep; canonical: string };
