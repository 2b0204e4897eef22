import { spawn } from "node:child_process";
import { access, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/**
 * Running the external media tools (ffmpeg, ffprobe, poppler-utils, pocketsphinx) safely inside a server:
 * - always `spawn(binary, argv)` — never a shell, so file names are never interpreted;
 * - a hard timeout and an optional AbortSignal, both of which SIGKILL the child and wait for it to exit
 *   (so a caller's `finally` that removes the temp folder never races a still-writing child);
 * - a cap on collected stdout (error or truncate), and only a tail of stderr is kept;
 * - failures surface as `MediaToolError` with a stable `code`.
 */

export const MEDIA_TOOL_NAMES = ["ffmpeg", "ffprobe", "pdfinfo", "pdftotext", "pdfimages", "pocketsphinx_continuous", "pandoc"] as const;
export type MediaToolName = (typeof MEDIA_TOOL_NAMES)[number];

/** Override the binary used for a tool (absolute path or a name looked up on PATH). */
export type MediaToolPaths = Partial<Record<MediaToolName, string>>;

export function toolBinary(name: MediaToolName, paths?: MediaToolPaths): string {
  return paths?.[name] ?? name;
}

/** Debian's pocketsphinx-en-us model folder. */
export const DEFAULT_POCKETSPHINX_MODEL_DIR = "/usr/share/pocketsphinx/model/en-us";

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
      reject(new MediaToolError("invalid-input", `${tool} could not be started: ${error instanceof Error ? error.message : String(error)}`, { tool, cause: error }));
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

/**
 * Refer to a local file unambiguously for ffmpeg/ffprobe: absolute and with the `file:` protocol, so a
 * name like `-x`, `http:…` or `concat:…` is never read as an option or another protocol.
 */
export function ffmpegInputUrl(filePath: string): string {
  return `file:${path.resolve(filePath)}`;
}

/**
 * Demuxers accepted for uploaded audio/video. Playlist/indirection formats (hls, concat, image2 patterns,
 * lavfi, tty…) are excluded: they can make ffmpeg read other local files or URLs (SSRF / file disclosure).
 */
export const ALLOWED_DEMUXERS = [
  "mov", "mp4", "matroska", "webm", "avi", "flv", "mpegts", "mpeg", "asf", "ogg", "mp3", "wav", "flac", "aac",
  "ac3", "eac3", "amr", "aiff", "caf", "w64", "gif", "apng", "m4v", "h264", "hevc", "mpegvideo", "dv", "mxf", "rm",
  "nut", "ivf", "wv", "ape", "tta", "au", "dts", "truehd", "mpc", "mpc8", "wtv",
] as const;

/** ffmpeg/ffprobe options placed before `-i`: only the file protocol, only the allowed demuxers. */
export function safeInputOptions(): string[] {
  return ["-protocol_whitelist", "file", "-format_whitelist", ALLOWED_DEMUXERS.join(",")];
}

export interface ToolStatus {
  available: boolean;
  /** Binary that was tried. */
  binary: string;
  version?: string;
  /** Why it is unavailable (or a note, e.g. the model folder for pocketsphinx). */
  detail?: string;
}
export type MediaToolsStatus = Record<MediaToolName, ToolStatus>;

function parseVersion(output: string): string | undefined {
  return /\bversion\s+(\S+)/i.exec(output)?.[1];
}

const versionCache = new Map<string, Promise<string>>();

/**
 * Version of the pocketsphinx in use. pocketsphinx_continuous 0.8 has no version flag, so for the
 * default binary the Debian package version is read with dpkg-query (e.g. "0.8+5prealpha+1-15");
 * "unknown" for custom binaries or when dpkg-query is absent.
 */
export function pocketsphinxVersion(paths?: MediaToolPaths): Promise<string> {
  const binary = toolBinary("pocketsphinx_continuous", paths);
  let cached = versionCache.get(binary);
  if (!cached) {
    cached =
      binary === "pocketsphinx_continuous" || binary === "/usr/bin/pocketsphinx_continuous"
        ? runTool("dpkg-query", ["-W", "-f", "${Version}", "pocketsphinx"], { timeoutMs: 5_000, maxStdoutBytes: 4096 })
            .then((r) => r.stdout.toString("utf8").trim() || "unknown")
            .catch(() => "unknown")
        : Promise.resolve("unknown");
    versionCache.set(binary, cached);
  }
  return cached;
}

/** Which tools are installed (and their versions). Never throws; takes ~50–100 ms. */
export async function checkMediaTools(
  options: { tools?: MediaToolPaths; pocketsphinxModelDir?: string; timeoutMs?: number } = {},
): Promise<MediaToolsStatus> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const versionArgs: Record<MediaToolName, string[]> = {
    ffmpeg: ["-hide_banner", "-version"],
    ffprobe: ["-hide_banner", "-version"],
    pdfinfo: ["-v"],
    pdftotext: ["-v"],
    pdfimages: ["-v"],
    // No version flag: run without arguments (prints usage, exits 1) just to see that it starts.
    pocketsphinx_continuous: [],
    pandoc: ["--version"],
  };
  const entries = await Promise.all(
    MEDIA_TOOL_NAMES.map(async (name): Promise<[MediaToolName, ToolStatus]> => {
      const binary = toolBinary(name, options.tools);
      try {
        const r = await runTool(binary, versionArgs[name], { timeoutMs, maxStdoutBytes: 256 * 1024, okExitCodes: [0, 1, 99] });
        const status: ToolStatus = { available: true, binary, version: parseVersion(`${r.stdout.toString("utf8")}\n${r.stderr}`) };
        if (name === "pocketsphinx_continuous") {
          status.version = await pocketsphinxVersion(options.tools);
          const modelDir = options.pocketsphinxModelDir ?? DEFAULT_POCKETSPHINX_MODEL_DIR;
          try {
            await access(modelDir);
            status.detail = `model ${modelDir}`;
          } catch {
            status.available = false;
            status.detail = `model folder ${modelDir} is missing`;
          }
        }
        return [name, status];
      } catch (error) {
        return [name, { available: false, binary, detail: error instanceof Error ? error.message : String(error) }];
      }
    }),
  );
  return Object.fromEntries(entries) as MediaToolsStatus;
}
