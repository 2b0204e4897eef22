/**
 * A failure of an external model endpoint (a classifier provider, a chat-completions server, an
 * image describer): which one, what kind of failure, and the HTTP status when there was one.
 */
export type ProviderErrorCode = "timeout" | "aborted" | "network" | "http" | "malformed";

export class ProviderError extends Error {
  override readonly name = "ProviderError";
  constructor(
    readonly providerId: string,
    readonly code: ProviderErrorCode,
    message: string,
    options?: { cause?: unknown; status?: number },
  ) {
    super(`${providerId}: ${message}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.status = options?.status;
  }
  readonly status: number | undefined;
}
