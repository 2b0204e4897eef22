import sharp from "sharp";
import { probeMedia, type MediaProbe } from "@/lib/media/probe";
import {
  createDeadline,
  ffmpegInputUrl,
  MediaToolError,
  runTool,
  safeInputOptions,
  throwIfAborted,
  toolBinary,
  type Deadline,
  type MediaToolPaths,
} from "@/lib/media/tools";

/**
 * Frame sampling policy
 * ---------------------
 * - Target density: one frame every 2 s (`DEFAULT_FRAME_SPACING_SECONDS`).
 * - At most `maxFrames` frames (default 30, hard ceiling 300). A clip of d seconds gets
 *   N = clamp(ceil(d / 2), 1, maxFrames) frames and interval I = d / N, so a long video is covered
 *   evenly from start to end rather than only its first minutes (a 10 min clip with 30 frames → 1 per 20 s).
 * - Frame k is taken at the middle of its slot, t = (k + ½)·I (3 s clip → 0.75 s and 2.25 s; 30 s clip →
 *   1, 3, …, 29 s). Mid-slot sampling skips the black/fade-in first frame and never falls off the end.
 * - Unknown duration (no duration in the container): I = 2 s, stopping at maxFrames.
 *
 * Implementation: ONE ffmpeg decode pass with `fps=1/I:round=near` (frame k = the last source frame at or
 * before (k + ½)·I, i.e. within one source frame of the reported time), `scale` to the target size,
 * rawvideo rgb24 on a pipe, each frame JPEG-encoded with sharp as it arrives. Seeking per frame is ~6×
 * slower on this machine.
 */

export const DEFAULT_FRAME_SPACING_SECONDS = 2;
export const DEFAULT_MAX_FRAMES = 30;
export const MAX_FRAMES_CEILING = 300;
/** Longer side of sampled frames: enough for nsfwjs (224²) and perceptual hashing, small enough to be cheap. */
export const DEFAULT_FRAME_MAX_DIMENSION = 320;

export interface FrameIntervalOptions {
  maxFrames?: number;
  /** Preferred spacing for short clips (default 2 s). */
  spacingSeconds?: number;
}

function clampMaxFrames(maxFrames: number | undefined): number {
  const n = Math.floor(maxFrames ?? DEFAULT_MAX_FRAMES);
  if (!Number.isFinite(n) || n < 1) return 1;
  return Math.min(n, MAX_FRAMES_CEILING);
}

/** Sampling interval in seconds for a clip of this duration (see the policy above). Rounded to the millisecond. */
export function frameIntervalFor(durationSeconds: number | null | undefined, options: FrameIntervalOptions = {}): number {
  const spacing = options.spacingSeconds && options.spacingSeconds > 0 ? options.spacingSeconds : DEFAULT_FRAME_SPACING_SECONDS;
  const maxFrames = clampMaxFrames(options.maxFrames);
  if (durationSeconds === null || durationSeconds === undefined || !Number.isFinite(durationSeconds) || durationSeconds <= 0) return spacing;
  const count = Math.min(maxFrames, Math.max(1, Math.ceil(durationSeconds / spacing - 1e-9)));
  return Math.max(0.001, Math.round((durationSeconds / count) * 1000) / 1000);
}

/**
 * The times sampleFrames will report for a clip: (k + ½)·interval for every slot whose middle lies within
 * the clip (ffmpeg's fps filter drops a final slot that is less than half covered), at most maxFrames;
 * a clip shorter than half an interval gets its middle frame.
 */
export function frameTimesFor(durationSeconds: number | null | undefined, intervalSeconds: number, maxFrames = DEFAULT_MAX_FRAMES): number[] {
  const cap = clampMaxFrames(maxFrames);
  const known = durationSeconds !== null && durationSeconds !== undefined && Number.isFinite(durationSeconds) && durationSeconds > 0;
  const count = known ? Math.min(cap, Math.round(durationSeconds / intervalSeconds)) : cap;
  // Fewer than half a slot: sampleFrames falls back to the middle frame.
  if (known && count === 0) return [round3(durationSeconds / 2)];
  return Array.from({ length: count }, (_, k) => round3((k + 0.5) * intervalSeconds));
}

function round3(n: number): number {
  return Math.round(n * 1000) / 1000;
}

export interface SampledFrame {
  /** 0-based position in the returned list. */
  index: number;
  /** Where in the clip the frame comes from (seconds; within one source frame). */
  timeSeconds: number;
  /** Baseline JPEG, sRGB. */
  jpeg: Buffer;
  width: number;
  height: number;
}

export interface SampleFramesOptions {
  /** Default: frameIntervalFor(duration, {maxFrames}). */
  intervalSeconds?: number;
  /** Default 30, at most 300. */
  maxFrames?: number;
  /** Longer side in pixels (default 320); aspect ratio kept, even dimensions, never upscaled. */
  maxDimension?: number;
  /** JPEG quality 1–100 (default 85). */
  jpegQuality?: number;
  signal?: AbortSignal;
  /** Whole operation (probe + decode + encode). Default 120 s. */
  timeoutMs?: number;
  tools?: MediaToolPaths;
  /** Reuse a probe already made for this file (saves ~0.1 s). */
  probe?: MediaProbe;
}

/** Scales to `size` by area averaging, with square pixels. */
export function scaleFilter(size: { width: number; height: number }): string {
  return `scale=${size.width}:${size.height}:flags=area,setsar=1`;
}

/**
 * ffmpeg arguments that decode the first real video stream (never cover art), from `seekSeconds`
 * when given, through `filter` into at most `maxFrames` rgb24 frames on stdout.
 */
export function rawFramesArgs(filePath: string, job: { filter: string; maxFrames: number; seekSeconds?: number }): string[] {
  const args = ["-hide_banner", "-nostdin", "-loglevel", "error", ...safeInputOptions()];
  if (job.seekSeconds && job.seekSeconds > 0) args.push("-ss", job.seekSeconds.toFixed(3));
  args.push(
    "-i", ffmpegInputUrl(filePath),
    "-map", "0:V:0", // first real video stream, never cover art
    "-an", "-sn", "-dn",
    "-vf", job.filter,
    "-fps_mode", "passthrough",
    "-frames:v", String(job.maxFrames),
    "-pix_fmt", "rgb24",
    "-f", "rawvideo",
    "pipe:1",
  );
  return args;
}

/** Target frame size: longer side = min(maxDimension, source longer side), even numbers, ≥ 2. */
export function frameSizeFor(width: number, height: number, maxDimension = DEFAULT_FRAME_MAX_DIMENSION): { width: number; height: number } {
  const longer = Math.max(width, height);
  const scale = Math.min(1, maxDimension / longer);
  const even = (n: number): number => Math.max(2, Math.round((n * scale) / 2) * 2);
  return { width: even(width), height: even(height) };
}

/**
 * Sample frames from a video in one ffmpeg pass. Errors: "invalid-input" (no video stream / not media),
 * "failed" (undecodable), "timeout", "aborted", "too-large", "missing-tool".
 */
export async function sampleFrames(filePath: string, options: SampleFramesOptions = {}): Promise<SampledFrame[]> {
  const deadline = createDeadline(options.timeoutMs ?? 120_000);
  const probe = options.probe ?? (await probeMedia(filePath, { signal: options.signal, timeoutMs: deadline.remaining(), tools: options.tools }));
  if (!probe.hasVideo || !probe.width || !probe.height) {
    throw new MediaToolError("invalid-input", `no video stream to sample (${probe.formatName})`, { tool: "ffmpeg" });
  }
  const maxFrames = clampMaxFrames(options.maxFrames);
  const interval = options.intervalSeconds && options.intervalSeconds > 0 ? round3(options.intervalSeconds) : frameIntervalFor(probe.durationSeconds, { maxFrames });
  const intervalMs = Math.max(1, Math.round(interval * 1000));
  const size = frameSizeFor(probe.width, probe.height, options.maxDimension ?? DEFAULT_FRAME_MAX_DIMENSION);
  const quality = Math.min(100, Math.max(1, Math.round(options.jpegQuality ?? 85)));

  const frames = await decodeFrames(filePath, {
    filter: `fps=fps=1000/${intervalMs}:round=near,${scaleFilter(size)}`,
    maxFrames,
    size,
    quality,
    deadline,
    signal: options.signal,
    tools: options.tools,
    timeOf: (k) => round3(((k + 0.5) * intervalMs) / 1000),
  });
  if (frames.length > 0) return frames;

  // A clip shorter than half the interval leaves the first slot less than half covered and the fps filter
  // emits nothing: take the middle frame instead.
  const middle = probe.durationSeconds ? probe.durationSeconds / 2 : 0;
  const single = await decodeFrames(filePath, {
    seekSeconds: middle,
    filter: scaleFilter(size),
    maxFrames: 1,
    size,
    quality,
    deadline,
    signal: options.signal,
    tools: options.tools,
    timeOf: () => round3(middle),
  });
  if (single.length === 0) throw new MediaToolError("failed", "ffmpeg decoded no video frame", { tool: "ffmpeg" });
  return single;
}

async function decodeFrames(
  filePath: string,
  job: {
    filter: string;
    seekSeconds?: number;
    maxFrames: number;
    size: { width: number; height: number };
    quality: number;
    deadline: Deadline;
    signal?: AbortSignal;
    tools?: MediaToolPaths;
    timeOf: (k: number) => number;
  },
): Promise<SampledFrame[]> {
  const { width, height } = job.size;
  const frameBytes = width * height * 3;
  const args = rawFramesArgs(filePath, job);

  const frames: SampledFrame[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let k = 0;
  // Encode sequentially as frames arrive; one chain means one place where a sharp error surfaces.
  let chain: Promise<void> = Promise.resolve();
  let encodeError: unknown;

  const enqueue = (raw: Buffer): void => {
    const index = k++;
    chain = chain.then(async () => {
      if (encodeError) return;
      try {
        const jpeg = await sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: job.quality }).toBuffer();
        frames.push({ index, timeSeconds: job.timeOf(index), jpeg, width, height });
      } catch (error) {
        encodeError = error;
      }
    });
  };

  await runTool(toolBinary("ffmpeg", job.tools), args, {
    signal: job.signal,
    timeoutMs: job.deadline.remaining(),
    // One spare frame of slack; ffmpeg stops itself at -frames:v.
    maxStdoutBytes: (job.maxFrames + 1) * frameBytes,
    onStdout: (chunk) => {
      pending.push(chunk);
      pendingBytes += chunk.length;
      while (pendingBytes >= frameBytes) {
        const all = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
        enqueue(all.subarray(0, frameBytes));
        const rest = all.subarray(frameBytes);
        pending = rest.length ? [rest] : [];
        pendingBytes = rest.length;
      }
    },
  });
  // Wait for the encoder, but still honour the time budget and the signal.
  await raceDeadline(chain, job.deadline, job.signal);
  if (encodeError) {
    throw new MediaToolError("failed", `JPEG encoding of a frame failed: ${encodeError instanceof Error ? encodeError.message : String(encodeError)}`, {
      cause: encodeError,
    });
  }
  return frames.sort((a, b) => a.index - b.index);
}

async function raceDeadline(work: Promise<void>, deadline: Deadline, signal: AbortSignal | undefined): Promise<void> {
  throwIfAborted(signal, "frame sampling");
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new MediaToolError("timeout", "frame encoding ran out of time")), Math.max(0, deadline.remaining()));
        onAbort = () => reject(new MediaToolError("aborted", "frame sampling aborted", { cause: signal?.reason }));
        signal?.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
}
