/** How running a media tool fails: MediaToolError with a stable `code`. */

export type MediaToolErrorCode =
  /** The binary (or a model it needs) is not installed: spawn gave ENOENT/EACCES. */
  | "missing-tool"
  /** The time budget ran out; the child was killed. */
  | "timeout"
  /** The caller's AbortSignal fired; the child was killed. */
  | "aborted"
  /** The tool exited non-zero or was killed by a signal (see `stderrTail`), or its output was unusable. */
  | "failed"
  /** Output exceeded the configured cap; the child was killed. */
  | "too-large"
  /** The tool ran fine but the input is not what was asked for (e.g. a text file given to probeMedia). */
  | "invalid-input";

export class MediaToolError extends Error {
  override readonly name = "MediaToolError";
  readonly code: MediaToolErrorCode;
  /** Tool (binary base name) involved, when there is one. */
  readonly tool: string | undefined;
  readonly exitCode: number | null | undefined;
  readonly exitSignal: string | null | undefined;
  /** Last lines of the tool's stderr (at most a few KiB). */
  readonly stderrTail: string | undefined;

  constructor(
    code: MediaToolErrorCode,
    message: string,
    details: { tool?: string; exitCode?: number | null; exitSignal?: string | null; stderrTail?: string; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.tool = details.tool;
    this.exitCode = details.exitCode;
    this.exitSignal = details.exitSignal;
    this.stderrTail = details.stderrTail;
  }
}

export function isMediaToolError(error: unknown, code?: MediaToolErrorCode): error is MediaToolError {
  return error instanceof MediaToolError && (code === undefined || error.code === code);
}
