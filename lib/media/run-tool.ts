import { spawn } from "node:child_process";
import path from "node:path";
import { MediaToolError } from "./media-tool-error";
import { errorMessage } from "@/lib/core/errors";

/**
 * Running the external media tools (ffmpeg, ffprobe, poppler-utils, pocketsphinx) safely inside a server:
 * - always `spawn(binary, argv)` — never a shell, so file names are never interpreted;
 * - a hard timeout and an optional AbortSignal, both of which SIGKILL the child and wait for it to exit
 *   (so a caller's `finally` that removes the temp folder never races a still-writing child);
 * - a cap on collected stdout (error or truncate), and only a tail of stderr is kept;
 * - failures surface as `MediaToolError` with a stable `code`.
 */

export interface RunToolOptions {
  signal?: AbortSignal;
  /** Hard limit; the child is SIGKILLed when it runs out. Default 60 s. A value ≤ 0 fails at once with "timeout". */
  timeoutMs?: number;
  /** Cap on stdout bytes (collected or streamed). Default 32 MiB. */
  maxStdoutBytes?: number;
  /** What to do when stdout passes the cap: "error" (default) → MediaToolError "too-large"; "truncate" → kill the child and return what fits, with `truncated: true`. */
  stdoutOverflow?: "error" | "truncate";
  /** Stream stdout to this callback instead of collecting it (`result.stdout` is then empty). Throwing kills the child and rejects with that error. */
  onStdout?: (chunk: Buffer) => void;
  /** How many bytes of stderr to keep (tail). Default 8 KiB. */
  stderrTailBytes?: number;
  /** Exit codes that count as success. Default [0]. */
  okExitCodes?: readonly number[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Called with the child's pid once it is started (diagnostics, tests). */
  onSpawn?: (pid: number) => void;
}

export interface RunToolResult {
  stdout: Buffer;
  /** Tail of stderr (see `stderrTailBytes`). */
  stderr: string;
  exitCode: number | null;
  truncated: boolean;
  durationMs: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_STDOUT = 32 * 1024 * 1024;
const DEFAULT_STDERR_TAIL = 8 * 1024;
/** After SIGKILL, how long to wait for 'close' before giving up on it (a child stuck in uninterruptible I/O). */
const KILL_GRACE_MS = 2_000;

function tail(text: string, maxChars: number): string {
  return text.length <= maxChars ? text : text.slice(text.length - maxChars);
}

/** Shorten a stderr tail for inclusion in an error message. */
function lastLines(text: string, lines = 6): string {
  return text.trim().split("\n").slice(-lines).join("\n");
}

/**
 * Run one external tool. The single entry point every media helper uses.
 * Rejects with MediaToolError: missing-tool | timeout | aborted | failed | too-large.
 */
export function runTool(binary: string, args: readonly string[], options: RunToolOptions = {}): Promise<RunToolResult> {
  const tool = path.basename(binary);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxStdout = options.maxStdoutBytes ?? DEFAULT_MAX_STDOUT;
  const stderrTailBytes = options.stderrTailBytes ?? DEFAULT_STDERR_TAIL;
  const okExitCodes = options.okExitCodes ?? [0];
  const started = Date.now();

  if (options.signal?.aborted) {
    return Promise.reject(new MediaToolError("aborted", `${tool} not started: operation aborted`, { tool, cause: options.signal.reason }));
  }
  if (!(timeoutMs > 0)) {
    return Promise.reject(new MediaToolError("timeout", `${tool} not started: time budget exhausted`, { tool }));
  }

  return new Promise<RunToolResult>((resolve, reject) => {
    let settled = false;
    let killReason: "timeout" | "aborted" | "too-large" | "truncate" | "callback-error" | undefined;
    let callbackError: unknown;
    let stdoutBytes = 0;
    const stdoutChunks: Buffer[] = [];
    let stderr = "";
    let graceTimer: NodeJS.Timeout | undefined;

    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(binary, args, {
        stdio: ["ignore", "pipe", "pipe"],
        cwd: options.cwd,
        env: options.env ?? process.env,
        windowsHide: true,
      });
    } catch (error) {
      // Synchronous spawn errors: invalid arguments such as a NUL byte in a path.
      reject(new MediaToolError("invalid-input", `${tool} could not be started: ${errorMessage(error)}`, { tool, cause: error }));
      return;
    }

    const cleanup = (): void => {
      clearTimeout(timer);
      if (graceTimer) clearTimeout(graceTimer);
      options.signal?.removeEventListener("abort", onAbort);
    };

    const finish = (error: Error | undefined, result?: RunToolResult): void => {
      if (settled) return;
      settled = true;
      cleanup();
      if (error) reject(error);
      else resolve(result!);
    };

    const errorFor = (reason: NonNullable<typeof killReason>): Error => {
      const stderrTail = tail(stderr, stderrTailBytes);
      switch (reason) {
        case "timeout":
          return new MediaToolError("timeout", `${tool} timed out after ${timeoutMs} ms and was killed`, { tool, stderrTail });
        case "aborted":
          return new MediaToolError("aborted", `${tool} aborted and killed`, { tool, stderrTail, cause: options.signal?.reason });
        case "too-large":
          return new MediaToolError("too-large", `${tool} output exceeded ${maxStdout} bytes; killed`, { tool, stderrTail });
        case "callback-error":
          return callbackError instanceof Error ? callbackError : new Error(String(callbackError));
        case "truncate":
          throw new Error("unreachable");
      }
    };

    const kill = (reason: NonNullable<typeof killReason>): void => {
      if (killReason) return;
      killReason = reason;
      child.kill("SIGKILL");
      // Normally 'close' follows within milliseconds; do not hang forever if it does not.
      graceTimer = setTimeout(() => {
        if (reason === "truncate") finish(undefined, result(null));
        else finish(errorFor(reason));
      }, KILL_GRACE_MS);
      graceTimer.unref();
    };

    const onAbort = (): void => kill("aborted");
    const timer = setTimeout(() => kill("timeout"), timeoutMs);
    options.signal?.addEventListener("abort", onAbort, { once: true });

    const result = (exitCode: number | null): RunToolResult => ({
      stdout: options.onStdout ? Buffer.alloc(0) : Buffer.concat(stdoutChunks),
      stderr: tail(stderr, stderrTailBytes),
      exitCode,
      truncated: killReason === "truncate",
      durationMs: Date.now() - started,
    });

    child.stdout!.on("data", (chunk: Buffer) => {
      if (killReason) return;
      let piece = chunk;
      if (stdoutBytes + chunk.length > maxStdout) {
        if (options.stdoutOverflow !== "truncate") {
          kill("too-large");
          return;
        }
        piece = chunk.subarray(0, maxStdout - stdoutBytes);
      }
      stdoutBytes += piece.length;
      if (piece.length > 0) {
        if (options.onStdout) {
          try {
            options.onStdout(piece);
          } catch (error) {
            callbackError = error;
            kill("callback-error");
            return;
          }
        } else {
          stdoutChunks.push(piece);
        }
      }
      if (piece.length < chunk.length) kill("truncate");
    });
    child.stdout!.on("error", () => {});
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (text: string) => {
      stderr = tail(stderr + text, stderrTailBytes * 2);
    });
    child.stderr!.on("error", () => {});

    child.on("spawn", () => {
      if (child.pid !== undefined) options.onSpawn?.(child.pid);
    });

    child.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "EACCES") {
        finish(new MediaToolError("missing-tool", `${tool} is not installed or not executable (${binary}: ${error.code})`, { tool, cause: error }));
      } else if (child.pid === undefined) {
        finish(new MediaToolError("failed", `${tool} could not be started: ${error.message}`, { tool, cause: error }));
      }
      // Errors after a successful spawn (e.g. a failed kill) are followed by 'close'.
    });

    child.on("close", (code, exitSignal) => {
      if (killReason === "truncate") return finish(undefined, result(code));
      if (killReason) return finish(errorFor(killReason));
      if (code !== null && okExitCodes.includes(code)) return finish(undefined, result(code));
      const stderrTail = tail(stderr, stderrTailBytes);
      const how = code === null ? `was killed by ${exitSignal}` : `exited with code ${code}`;
      const detail = lastLines(stderrTail);
      finish(
        new MediaToolError("failed", `${tool} ${how}${detail ? `: ${detail}` : ""}`, { tool, exitCode: code, exitSignal, stderrTail }),
      );
    });
  });
}
