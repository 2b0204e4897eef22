import { access, open, stat } from "node:fs/promises";
import path from "node:path";
import { probeMedia, type MediaProbe } from "@/lib/media/probe";
import { calibrateCepstralMean, POCKETSPHINX_DITHER_ARGS } from "@/lib/media/transcribe-calibration";
import {
  createDeadline,
  DEFAULT_POCKETSPHINX_MODEL_DIR,
  ffmpegInputUrl,
  MediaToolError,
  pocketsphinxVersion,
  runTool,
  safeInputOptions,
  toolBinary,
  withTempDir,
  type MediaToolPaths,
} from "@/lib/media/tools";

/**
 * Speech to text with Debian's pocketsphinx 0.8 (`pocketsphinx_continuous`) and its US-English model.
 * Quality is modest (~35% word error rate on clear speech, 36–59% on espeak-ng voices — see
 * bench/speech-quality.ts — worse on music/noise): treat the transcript as a hint for the text
 * classifiers, not as evidence. Speed ≈ 0.2–0.4× real time on long files, ≈0.65× on short clips
 * (the calibration pass and two decoder starts dominate).
 *
 * Pipeline: ffmpeg decodes the first audio stream of any audio/video file to 16 kHz mono s16le WAV (with a
 * plain 44-byte header, which pocketsphinx 0.8 requires); a short first pass measures the recording's
 * cepstral mean (transcribe-calibration.ts), then `pocketsphinx_continuous -infile x.wav -time yes …`
 * decodes it starting from that mean. Silence or music → empty text, not an error.
 */

export interface TranscriptSegment {
  startSeconds: number;
  endSeconds: number;
  text: string;
  /** Mean of pocketsphinx's per-word posterior probabilities (0–1); absent when no word timings were printed. Often low: see NOISE_CONFIDENCE_BELOW. */
  confidence?: number;
}

/** Segments less confident than this are mostly noise (music, babble); clear speech usually scores 0.3–0.9. */
export const NOISE_CONFIDENCE_BELOW = 0.3;

export interface Transcript {
  /** Segment texts joined with spaces; "" when nothing was recognised. */
  text: string;
  segments: TranscriptSegment[];
  /** e.g. "pocketsphinx-0.8+5prealpha+1-15" (Debian package version; "pocketsphinx-unknown" if not found). */
  engine: string;
  /** Acoustic/language model used, e.g. "en-us". */
  model: string;
  /** Seconds of audio that were transcribed (after `maxDurationSeconds`). */
  audioSeconds: number;
  /** The audio was longer than `maxDurationSeconds` and only its beginning was transcribed. */
  truncated: boolean;
  /** false when the file has no audio stream (then text is "" and nothing ran). */
  hasAudio: boolean;
}

export interface TranscribeOptions {
  signal?: AbortSignal;
  /** Whole operation (probe + decode + recognition). Default 10 min. */
  timeoutMs?: number;
  /** Only the first N seconds are transcribed (default 900 = 15 min). */
  maxDurationSeconds?: number;
  tools?: MediaToolPaths;
  /** Folder with `en-us/`, `en-us.lm.bin`, `cmudict-en-us.dict` (Debian pocketsphinx-en-us). */
  modelDir?: string;
  /** Reuse a probe already made for this file. */
  probe?: MediaProbe;
}

const SAMPLE_RATE = 16_000;
const WAV_HEADER_BYTES = 44;

/** Words pocketsphinx emits that are not speech: sentence markers, silence, fillers (`<s>`, `</s>`, `<sil>`, `[NOISE]`, `++BREATH++`, `(NULL)`). */
function isFiller(word: string): boolean {
  return /^(<.*>|\[.*\]|\+\+.*\+\+|\(.*\))$/.test(word);
}

/** "read(2)" → "read": pocketsphinx marks alternate pronunciations with a numeric suffix. */
function cleanWord(word: string): string {
  return word.replace(/\(\d+\)$/, "");
}

const TIMING_LINE = /^(\S+)\s+(-?\d+(?:\.\d+)?)\s+(-?\d+(?:\.\d+)?)\s+(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)$/;

/** A gap between words at least this long starts a new segment even inside one pocketsphinx utterance. */
const SEGMENT_GAP_SECONDS = 1.0;

/**
 * Parse what `pocketsphinx_continuous -infile … -time yes` (0.8 / 5prealpha) prints on stdout. For every
 * utterance its VAD finds, it prints the hypothesis line (possibly empty) followed by one line per word:
 * `word start end confidence`, times in seconds from the start of the file, e.g.
 *
 *     hello world
 *     <s> 0.000 0.290 0.999800
 *     hello 0.300 0.710 0.810274
 *     world(2) 0.720 1.160 0.612213
 *     </s> 1.170 1.300 1.000000
 *
 * Segments are built from the timed words (fillers dropped, pronunciation suffixes removed), one per
 * utterance, split further at pauses ≥ 1 s. A hypothesis without timed words (`-time no` output) still
 * yields a segment, timed at the end of the previous one. Unrecognised lines (log noise) are ignored
 * when they cannot be hypotheses.
 */
export function parsePocketsphinxOutput(stdout: string): TranscriptSegment[] {
  interface Utterance {
    hypothesis: string;
    words: Array<{ word: string; start: number; end: number; confidence: number }>;
    timed: boolean;
  }
  const utterances: Utterance[] = [];
  let current: Utterance | undefined;

  for (const rawLine of stdout.split(/\r?\n/)) {
    const line = rawLine.trim();
    const timing = TIMING_LINE.exec(line);
    if (timing) {
      const word = timing[1]!;
      // `<s>` opens an utterance; start a new one if the current one already has timings (no hypothesis line in between).
      if (!current || (word === "<s>" && current.timed)) {
        current = { hypothesis: "", words: [], timed: false };
        utterances.push(current);
      }
      current.timed = true;
      const start = Number(timing[2]);
      const end = Number(timing[3]);
      const confidence = Math.min(1, Math.max(0, Number(timing[4]) || 0));
      if (!isFiller(word) && Number.isFinite(start) && Number.isFinite(end)) {
        current.words.push({ word: cleanWord(word), start, end: Math.max(start, end), confidence });
      }
      continue;
    }
    if (/^(INFO|WARN|WARNING|ERROR|FATAL|SYSTEM_ERROR)\b|:\s/.test(line)) continue; // log lines that leaked to stdout
    if (line === "" && current && !current.timed && current.hypothesis === "") continue;
    current = { hypothesis: line, words: [], timed: false };
    utterances.push(current);
  }

  const segments: TranscriptSegment[] = [];
  const lastEnd = (): number => segments.at(-1)?.endSeconds ?? 0;
  for (const u of utterances) {
    if (u.words.length === 0) {
      const text = u.timed ? "" : u.hypothesis.split(/\s+/).filter((w) => w && !isFiller(w)).map(cleanWord).join(" ");
      if (text) segments.push({ startSeconds: lastEnd(), endSeconds: lastEnd(), text });
      continue;
    }
    let group: typeof u.words = [];
    const flush = (): void => {
      if (group.length === 0) return;
      const confidence = group.reduce((sum, w) => sum + w.confidence, 0) / group.length;
      segments.push({
        startSeconds: group[0]!.start,
        endSeconds: group.at(-1)!.end,
        text: group.map((w) => w.word).join(" "),
        confidence: Math.round(confidence * 1000) / 1000,
      });
      group = [];
    };
    for (const w of u.words) {
      const previous = group.at(-1);
      if (previous && w.start - previous.end >= SEGMENT_GAP_SECONDS) flush();
      group.push(w);
    }
    flush();
  }
  return segments;
}

/** Duration of the first audio stream's file (ffprobe); null when it has no audio or does not say. */
export async function extractAudioDurationSeconds(
  filePath: string,
  options: { signal?: AbortSignal; timeoutMs?: number; tools?: MediaToolPaths } = {},
): Promise<number | null> {
  const probe = await probeMedia(filePath, options);
  return probe.hasAudio ? probe.durationSeconds : null;
}

async function assertModel(modelDir: string): Promise<{ hmm: string; lm: string; dict: string }> {
  const files = {
    hmm: path.join(modelDir, "en-us"),
    lm: path.join(modelDir, "en-us.lm.bin"),
    dict: path.join(modelDir, "cmudict-en-us.dict"),
  };
  for (const file of Object.values(files)) {
    try {
      await access(file);
    } catch (error) {
      throw new MediaToolError("missing-tool", `pocketsphinx model file missing: ${file}`, { tool: "pocketsphinx_continuous", cause: error });
    }
  }
  return files;
}

/** pocketsphinx 0.8 skips exactly 44 bytes of a .wav and aborts unless they are a plain PCM header. */
async function assertPlainWavHeader(file: string): Promise<void> {
  const handle = await open(file, "r");
  try {
    const header = Buffer.alloc(WAV_HEADER_BYTES);
    const { bytesRead } = await handle.read(header, 0, WAV_HEADER_BYTES, 0);
    const ok =
      bytesRead === WAV_HEADER_BYTES &&
      header.toString("latin1", 0, 4) === "RIFF" &&
      header.toString("latin1", 8, 12) === "WAVE" &&
      header.toString("latin1", 36, 40) === "data" &&
      header.readUInt16LE(22) === 1 &&
      header.readUInt32LE(24) === SAMPLE_RATE;
    if (!ok) throw new MediaToolError("failed", "ffmpeg did not write a plain 16 kHz mono PCM WAV header", { tool: "ffmpeg" });
  } finally {
    await handle.close();
  }
}

/**
 * Transcribe the first audio stream of an audio or video file. Errors: "invalid-input" (not media),
 * "failed", "timeout", "aborted", "missing-tool" (ffmpeg/pocketsphinx or its model absent).
 */
export async function transcribeAudio(filePath: string, options: TranscribeOptions = {}): Promise<Transcript> {
  const deadline = createDeadline(options.timeoutMs ?? 600_000);
  const modelDir = options.modelDir ?? DEFAULT_POCKETSPHINX_MODEL_DIR;
  const model = await assertModel(modelDir);
  const engine = `pocketsphinx-${await pocketsphinxVersion(options.tools)}`;
  const modelName = path.basename(modelDir);
  const maxSeconds = options.maxDurationSeconds && options.maxDurationSeconds > 0 ? options.maxDurationSeconds : 900;

  const probe = options.probe ?? (await probeMedia(filePath, { signal: options.signal, timeoutMs: deadline.remaining(), tools: options.tools }));
  if (!probe.hasAudio) return { text: "", segments: [], engine, model: modelName, audioSeconds: 0, truncated: false, hasAudio: false };

  return withTempDir(async (dir) => {
    const wav = path.join(dir, "audio.wav");
    await runTool(
      toolBinary("ffmpeg", options.tools),
      [
        "-hide_banner", "-nostdin", "-loglevel", "error",
        ...safeInputOptions(),
        "-i", ffmpegInputUrl(filePath),
        "-map", "0:a:0", "-vn", "-sn", "-dn",
        "-t", String(maxSeconds),
        "-ac", "1", "-ar", String(SAMPLE_RATE), "-c:a", "pcm_s16le",
        // No LIST/INFO chunk: the header must be exactly 44 bytes for pocketsphinx 0.8.
        "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:a", "+bitexact",
        "-f", "wav", ffmpegInputUrl(wav),
      ],
      { signal: options.signal, timeoutMs: deadline.remaining(), maxStdoutBytes: 64 * 1024 },
    );
    await assertPlainWavHeader(wav);
    const audioSeconds = Math.max(0, ((await stat(wav)).size - WAV_HEADER_BYTES) / (SAMPLE_RATE * 2));
    const truncated = probe.durationSeconds !== null && probe.durationSeconds > maxSeconds + 0.05;

    const featParams = await calibrateCepstralMean({ wav, dir, model, deadline, signal: options.signal, tools: options.tools });
    const result = await runTool(
      toolBinary("pocketsphinx_continuous", options.tools),
      [
        "-infile", wav, "-time", "yes", "-samprate", String(SAMPLE_RATE), "-hmm", model.hmm, "-lm", model.lm, "-dict", model.dict,
        ...POCKETSPHINX_DITHER_ARGS,
        ...(featParams ? ["-featparams", featParams] : []),
      ],
      { signal: options.signal, timeoutMs: deadline.remaining(), maxStdoutBytes: 16 * 1024 * 1024, cwd: dir },
    );
    const segments = parsePocketsphinxOutput(result.stdout.toString("utf8"));
    return {
      text: segments.map((s) => s.text).join(" "),
      segments,
      engine,
      model: modelName,
      audioSeconds: Math.round(audioSeconds * 1000) / 1000,
      truncated,
      hasAudio: true,
    };
  });
}
