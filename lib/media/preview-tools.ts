import path from "node:path";
import sharp from "sharp";
import { frameSizeFor, rawFramesArgs, scaleFilter } from "./frames";
import { probeMedia, type MediaProbe } from "./probe";
import { encodePreview, PREVIEW_MAX_SIDE, rawPreview, type RenderedPreview } from "./preview";
import { createDeadline, MediaToolError, runTool, toolBinary, type MediaToolPaths } from "./tools";

/**
 * Previews made by the external tools: a PDF's first page (poppler's pdftoppm) and a video's poster
 * frame (ffmpeg). Both run like every other media tool (run-tool.ts: no shell, time limit, capped
 * output) and hand their pixels to encodePreview.
 */

export interface ToolPreviewOptions {
  signal?: AbortSignal;
  /** Default 30 s. */
  timeoutMs?: number;
  tools?: MediaToolPaths;
}

/**
 * The first page of a PDF, rendered with its longest side at PREVIEW_MAX_SIDE (a page has no pixel
 * size of its own; its crop box, as viewers show it). Errors: MediaToolError "failed" (malformed
 * or encrypted PDF), "timeout", "aborted", "missing-tool".
 */
export async function pdfFirstPagePreview(file: string, options: ToolPreviewOptions = {}): Promise<RenderedPreview> {
  const args = ["-f", "1", "-l", "1", "-singlefile", "-cropbox", "-png", "-scale-to", String(PREVIEW_MAX_SIDE), path.resolve(file)];
  // No output name: the page comes on stdout.
  const run = await runTool(toolBinary("pdftoppm", options.tools), args, { signal: options.signal, timeoutMs: options.timeoutMs ?? 30_000, maxStdoutBytes: 32 * 1024 * 1024 });
  if (run.stdout.length === 0) throw new MediaToolError("failed", "pdftoppm rendered no page", { tool: "pdftoppm", stderrTail: run.stderr });
  return encodePreview(sharp(run.stdout, { failOn: "error" }));
}

/** Where the poster frame is taken: at 10% of the clip or at 1 s, whichever is earlier (past a fade-in, still the opening). */
export function posterTimeFor(durationSeconds: number | null | undefined): number {
  if (!durationSeconds || !Number.isFinite(durationSeconds) || durationSeconds <= 0) return 0;
  return Math.min(1, durationSeconds * 0.1);
}

/**
 * A video's poster frame at posterTimeFor(duration), or its first frame when nothing decodes
 * there (a wrong duration, a damaged middle). Upright (ffmpeg applies rotation metadata), square
 * pixels, longest side at most PREVIEW_MAX_SIDE. Errors: MediaToolError "invalid-input" (no video
 * stream), "failed" (no frame decodes), "timeout", "aborted", "missing-tool".
 */
export async function videoPosterPreview(
  file: string,
  options: ToolPreviewOptions & { probe?: MediaProbe } = {},
): Promise<RenderedPreview> {
  const deadline = createDeadline(options.timeoutMs ?? 30_000);
  const probe = options.probe ?? (await probeMedia(file, { signal: options.signal, timeoutMs: deadline.remaining(), tools: options.tools }));
  if (!probe.hasVideo || !probe.width || !probe.height) {
    throw new MediaToolError("invalid-input", `no video stream for a poster frame (${probe.formatName})`, { tool: "ffmpeg" });
  }
  const size = frameSizeFor(probe.width, probe.height, PREVIEW_MAX_SIDE);
  const frameBytes = size.width * size.height * 3;
  const frameAt = async (seconds: number): Promise<Buffer> => {
    const args = rawFramesArgs(file, { filter: scaleFilter(size), maxFrames: 1, seekSeconds: seconds });
    const run = await runTool(toolBinary("ffmpeg", options.tools), args, { signal: options.signal, timeoutMs: deadline.remaining(), maxStdoutBytes: frameBytes });
    return run.stdout;
  };
  const time = posterTimeFor(probe.durationSeconds);
  let frame = await frameAt(time);
  if (frame.length < frameBytes && time > 0) frame = await frameAt(0);
  if (frame.length < frameBytes) throw new MediaToolError("failed", "ffmpeg decoded no video frame for the poster", { tool: "ffmpeg" });
  return rawPreview({ data: frame, width: size.width, height: size.height, channels: 3 });
}
