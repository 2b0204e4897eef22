import { config } from "@/lib/core/config";
import { frameIntervalFor, sampleFrames } from "@/lib/media/frames";
import { probeMedia, type MediaProbe } from "@/lib/media/probe";
import { NOISE_CONFIDENCE_BELOW, transcribeAudio, type TranscriptSegment } from "@/lib/media/transcribe";
import type { MediaInput } from "../report";
import { findHashHold, type HoldFinding } from "./hash-hold";
import { ocrTextPart } from "./ocr";
import { errorMessage } from "@/lib/core/errors";
import { classifyPart, labelsOf, unavailablePart, type Part } from "./parts";

/**
 * Audio and video: frames sampled in one ffmpeg pass (each classified as an image, hashed against
 * the hash lists and, with OCR enabled, read for text), and the audio transcribed and classified
 * through the text path. Every frame and speech stretch becomes a report segment.
 */
export interface MediaAnalysis {
  parts: Part[];
  media: MediaInput;
  transcript: string | null;
  labels: string[];
  hold: HoldFinding | null;
  notes: Record<string, unknown>;
  /** Reused for the poster frame (saves a second ffprobe run). */
  probe: MediaProbe;
  /** The sampled frames (320 px JPEGs), in the order of the report's frame segments. */
  frames: Buffer[];
}

export async function analyzeMediaFile(filePath: string, options: { video: boolean; ocr: boolean }): Promise<MediaAnalysis> {
  const timeoutMs = config().executor.stepTimeoutMs;
  const probe = await probeMedia(filePath);
  const parts: Part[] = [];
  const segments: MediaInput["segments"] = [];
  const labels: string[] = [];
  const notes: Record<string, unknown> = { probe: { ...probe } };
  let hold: HoldFinding | null = null;
  const interval = frameIntervalFor(probe.durationSeconds);
  let sampledFrames = 0;
  const frameImages: Buffer[] = [];

  if (options.video && probe.hasVideo) {
    const frames = await sampleFrames(filePath, { intervalSeconds: interval, probe, timeoutMs });
    sampledFrames = frames.length;
    frameImages.push(...frames.map((f) => f.jpeg));
    for (const frame of frames) {
      const start = Math.max(0, frame.timeSeconds - interval / 2);
      const end = frame.timeSeconds + interval / 2;
      const part = await classifyPart(`frame@${frame.timeSeconds.toFixed(2)}s`, { kind: "frame", data: frame.jpeg, mimeType: "image/jpeg" });
      parts.push(part);
      labels.push(...labelsOf(part));
      segments.push({ source: "frame", startSeconds: start, endSeconds: end, categories: part.judgements });
      hold ??= await findHashHold(frame.jpeg, `frame at ${frame.timeSeconds.toFixed(2)} s`);
      if (options.ocr) {
        const { part: textPart } = await ocrTextPart(frame.jpeg, `frame-text@${frame.timeSeconds.toFixed(2)}s`);
        if (textPart) {
          parts.push(textPart);
          segments.push({ source: "frame-text", startSeconds: start, endSeconds: end, categories: textPart.judgements });
        }
      }
    }
  }

  let transcript: string | null = null;
  let audioTranscribed = false;
  if (probe.hasAudio) {
    try {
      const result = await transcribeAudio(filePath, { timeoutMs, probe });
      audioTranscribed = true;
      notes.transcription = { engine: result.engine, model: result.model, audioSeconds: result.audioSeconds, truncated: result.truncated };
      const kept = result.segments.filter((s: TranscriptSegment) => (s.confidence ?? 1) >= NOISE_CONFIDENCE_BELOW && s.text.trim());
      for (const segment of kept) {
        const part = await classifyPart(`speech@${segment.startSeconds.toFixed(2)}s`, { kind: "text", text: segment.text });
        segments.push({ source: "speech", startSeconds: segment.startSeconds, endSeconds: segment.endSeconds, categories: part.judgements });
      }
      transcript = kept.map((s) => s.text).join(" ").trim() || null;
      if (transcript) parts.push(await classifyPart("transcript", { kind: "text", text: transcript }));
    } catch (error) {
      notes.transcription = { error: errorMessage(error) };
      parts.push(unavailablePart("transcript", "text", { error: errorMessage(error) }));
    }
  }

  const lastEnd = segments.reduce((max, s) => Math.max(max, s.endSeconds), 0);
  const media: MediaInput = {
    durationSeconds: probe.durationSeconds && probe.durationSeconds > 0 ? probe.durationSeconds : Math.max(lastEnd, 0.001),
    frameIntervalSeconds: interval,
    sampledFrames,
    audioTranscribed,
    segments,
  };
  return { parts, media, transcript, labels, hold, notes, probe, frames: frameImages };
}
