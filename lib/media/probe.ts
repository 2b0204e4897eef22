import { stat } from "node:fs/promises";
import {
  createDeadline,
  ffmpegInputUrl,
  MediaToolError,
  runTool,
  safeInputOptions,
  toolBinary,
  type MediaToolPaths,
} from "@/lib/media/tools";
import { errorMessage } from "@/lib/core/errors";

export interface MediaProbe {
  /** Container duration (falls back to the longest stream); null when the file does not say (e.g. MediaRecorder WebM). */
  durationSeconds: number | null;
  /** A real video stream (cover art / attached pictures do not count). */
  hasVideo: boolean;
  hasAudio: boolean;
  /** Display size of the first video stream: rotation metadata and non-square pixels applied, i.e. what ffmpeg decodes to. */
  width?: number;
  height?: number;
  /** Rotation metadata of the video stream in degrees (0, 90, 180, 270), as applied by ffmpeg's autorotate. */
  rotation?: number;
  /** ffprobe's format name, e.g. "mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", "wav". */
  formatName: string;
  videoCodec?: string;
  audioCodec?: string;
  /** Average frame rate of the video stream, when known. */
  frameRate?: number;
  /** An embedded cover picture (e.g. MP3/M4A artwork). */
  hasCoverArt: boolean;
}

export interface ProbeOptions {
  signal?: AbortSignal;
  /** Default 15 s. */
  timeoutMs?: number;
  tools?: MediaToolPaths;
}

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  sample_aspect_ratio?: string;
  avg_frame_rate?: string;
  duration?: string;
  disposition?: { attached_pic?: number };
  tags?: Record<string, string>;
  side_data_list?: Array<{ rotation?: number | string }>;
}
interface FfprobeOutput {
  streams?: FfprobeStream[];
  format?: { format_name?: string; duration?: string };
}

function positiveNumber(value: unknown): number | undefined {
  const n = typeof value === "number" ? value : typeof value === "string" ? Number(value) : NaN;
  return Number.isFinite(n) && n > 0 ? n : undefined;
}

function ratio(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const [num, den] = value.split(/[:/]/).map(Number);
  if (num === undefined || den === undefined || !Number.isFinite(num) || !Number.isFinite(den) || num <= 0 || den <= 0) return undefined;
  return num / den;
}

function rotationOf(stream: FfprobeStream): number {
  let degrees = 0;
  for (const side of stream.side_data_list ?? []) {
    const r = Number(side.rotation);
    if (Number.isFinite(r) && r !== 0) degrees = r;
  }
  if (degrees === 0 && stream.tags?.rotate) degrees = Number(stream.tags.rotate) || 0;
  return (((Math.round(degrees / 90) * 90) % 360) + 360) % 360;
}

/** Turn ffprobe's `-show_format -show_streams` JSON into a MediaProbe; throws "invalid-input" when there is no audio or video. */
export function parseFfprobeJson(json: unknown, fileLabel = "file"): MediaProbe {
  const data = (json ?? {}) as FfprobeOutput;
  const streams = Array.isArray(data.streams) ? data.streams : [];
  const formatName = data.format?.format_name;
  if (!formatName) throw new MediaToolError("invalid-input", `${fileLabel} is not a recognised media file`, { tool: "ffprobe" });

  const videoStreams = streams.filter((s) => s.codec_type === "video");
  const video = videoStreams.find((s) => s.disposition?.attached_pic !== 1);
  const audio = streams.find((s) => s.codec_type === "audio");
  if (!video && !audio) {
    throw new MediaToolError("invalid-input", `${fileLabel} (${formatName}) has no audio or video stream`, { tool: "ffprobe" });
  }

  const streamDurations = streams.map((s) => positiveNumber(s.duration)).filter((d): d is number => d !== undefined);
  const durationSeconds = positiveNumber(data.format?.duration) ?? (streamDurations.length ? Math.max(...streamDurations) : null);

  const probe: MediaProbe = {
    durationSeconds,
    hasVideo: Boolean(video),
    hasAudio: Boolean(audio),
    formatName,
    hasCoverArt: videoStreams.some((s) => s.disposition?.attached_pic === 1),
  };
  if (video) {
    probe.videoCodec = video.codec_name;
    const rotation = rotationOf(video);
    probe.rotation = rotation;
    const fps = ratio(video.avg_frame_rate);
    if (fps !== undefined) probe.frameRate = fps;
    if (video.width && video.height) {
      const sar = ratio(video.sample_aspect_ratio) ?? 1;
      let w = Math.round(video.width * sar);
      let h = video.height;
      if (rotation === 90 || rotation === 270) [w, h] = [h, w];
      probe.width = w;
      probe.height = h;
    }
  }
  if (audio) probe.audioCodec = audio.codec_name;
  return probe;
}

/**
 * Inspect an audio/video file with ffprobe. Only the `file:` protocol and the demuxers in
 * ALLOWED_DEMUXERS are accepted, so playlists (HLS, concat…) cannot pull in other files or URLs.
 * Errors: "invalid-input" (missing file, not media, no audio/video stream), "failed", "timeout",
 * "aborted", "missing-tool".
 */
export async function probeMedia(filePath: string, options: ProbeOptions = {}): Promise<MediaProbe> {
  const deadline = createDeadline(options.timeoutMs ?? 15_000);
  try {
    const info = await stat(filePath);
    if (!info.isFile()) throw new Error("not a regular file");
  } catch (error) {
    throw new MediaToolError("invalid-input", `cannot read media file: ${errorMessage(error)}`, { cause: error });
  }
  let result;
  try {
    result = await runTool(
      toolBinary("ffprobe", options.tools),
      ["-hide_banner", "-v", "error", "-print_format", "json", "-show_format", "-show_streams", ...safeInputOptions(), "-i", ffmpegInputUrl(filePath)],
      { signal: options.signal, timeoutMs: deadline.remaining(), maxStdoutBytes: 4 * 1024 * 1024 },
    );
  } catch (error) {
    // ffprobe exits 1 with "Invalid data found when processing input" for anything it cannot demux.
    if (error instanceof MediaToolError && error.code === "failed" && /Invalid data found|could not find codec parameters|Invalid argument|not permitted/i.test(error.stderrTail ?? "")) {
      throw new MediaToolError("invalid-input", `not a supported audio/video file: ${(error.stderrTail ?? "").trim().split("\n").pop()}`, {
        tool: "ffprobe",
        exitCode: error.exitCode,
        stderrTail: error.stderrTail,
        cause: error,
      });
    }
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(result.stdout.toString("utf8"));
  } catch (error) {
    throw new MediaToolError("failed", "ffprobe printed invalid JSON", { tool: "ffprobe", stderrTail: result.stderr, cause: error });
  }
  return parseFfprobeJson(json);
}
