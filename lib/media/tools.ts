import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { MediaToolError } from "./media-tool-error";

/**
 * The media helpers' toolbox: running the external tools (run-tool.ts) and their errors
 * (media-tool-error.ts), which binaries (tool-binaries.ts), safe ffmpeg input (ffmpeg-input.ts),
 * what is installed (tool-status.ts); here, the time budget shared by several runs and private
 * temp folders.
 */

export { ALLOWED_DEMUXERS, ffmpegInputUrl, safeInputOptions } from "./ffmpeg-input";
export { isMediaToolError, MediaToolError, type MediaToolErrorCode } from "./media-tool-error";
export { runTool, type RunToolOptions, type RunToolResult } from "./run-tool";
export { DEFAULT_POCKETSPHINX_MODEL_DIR, MEDIA_TOOL_NAMES, toolBinary, type MediaToolName, type MediaToolPaths } from "./tool-binaries";
export { checkMediaTools, pocketsphinxVersion, type MediaToolsStatus, type ToolStatus } from "./tool-status";

/** One time budget shared by the several tool runs of an operation. */
export interface Deadline {
  /** Milliseconds left (may be ≤ 0, which makes runTool fail with "timeout"). */
  remaining(): number;
}

export function createDeadline(timeoutMs: number): Deadline {
  const end = Date.now() + timeoutMs;
  return { remaining: () => end - Date.now() };
}

/** Throw MediaToolError("aborted") when the signal has fired (between tool runs / in JS-side work). */
export function throwIfAborted(signal: AbortSignal | undefined, what = "media processing"): void {
  if (signal?.aborted) throw new MediaToolError("aborted", `${what} aborted`, { cause: signal.reason });
}

/** Throw MediaToolError("timeout") when the deadline has passed (for JS-side work between tool runs). */
export function throwIfExpired(deadline: Deadline, what = "media processing"): void {
  if (deadline.remaining() <= 0) throw new MediaToolError("timeout", `${what} ran out of time`);
}

/**
 * Run `fn` with a private folder created by mkdtemp under os.tmpdir() (mode 0700); the folder and
 * everything in it are removed afterwards, whatever happens.
 */
export async function withTempDir<T>(fn: (dir: string) => Promise<T>, prefix = "sieve-media-"): Promise<T> {
  const dir = await mkdtemp(path.join(/*turbopackIgnore: true*/ os.tmpdir(), prefix));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}
