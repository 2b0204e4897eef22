/** The typed errors of OCR (recognizeText, warmUpOcr, preprocessForOcr). */

export type OcrErrorCode =
  /** The bytes are not an image sharp can decode (or it is empty / zero-sized). */
  | "invalid-image"
  /** More than MAX_INPUT_PIXELS pixels: refused before decoding (decompression bombs). */
  | "image-too-large"
  | "timeout"
  | "aborted"
  /** The worker failed to start, died or reported an error. The next call starts a new one. */
  | "engine-failed"
  /** shutdownOcr() stopped the worker while this request was running. */
  | "shut-down";

export class OcrError extends Error {
  override readonly name = "OcrError";
  constructor(
    readonly code: OcrErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}

export function isOcrError(error: unknown): error is OcrError {
  return error instanceof OcrError || (error instanceof Error && error.name === "OcrError" && "code" in error);
}
