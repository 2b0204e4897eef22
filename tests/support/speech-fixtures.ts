import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";

/**
 * Spoken fixtures made offline with Debian's espeak-ng from the known sentences in
 * tests/fixtures/speech/sentences.json, at test and bench time (nothing binary is committed).
 * Used by bench/speech-quality.ts (word error rate) and tests/http/speech.test.ts (a spoken threat
 * must reach the text classifier).
 */

const execFileAsync = promisify(execFile);

export const SPEECH_SENTENCES_FILE = path.join(process.cwd(), "tests/fixtures/speech/sentences.json");

export interface SpokenSentence {
  id: string;
  text: string;
  /** What the text classifier should flag in the written sentence; [] for benign ones. */
  categories: string[];
}

export function loadSpokenSentences(file = SPEECH_SENTENCES_FILE): SpokenSentence[] {
  const parsed = JSON.parse(readFileSync(file, "utf8")) as { sentences: SpokenSentence[] };
  return parsed.sentences;
}

export function spokenSentence(id: string): SpokenSentence {
  const found = loadSpokenSentences().find((s) => s.id === id);
  if (!found) throw new Error(`no spoken sentence "${id}" in ${SPEECH_SENTENCES_FILE}`);
  return found;
}

export interface SpeechVoice {
  /** espeak-ng voice, e.g. "en-us" or "en-us+klatt2" (language + variant). */
  voice: string;
  /** Speaking rate in words per minute (espeak-ng's `-s`; its default is 175). */
  wordsPerMinute: number;
}

/**
 * The voice the tests use, chosen on the whole sentence set's word error rate (see the bench's
 * per-voice table), not on any one sentence: the Klatt variant's cleaner formants are what
 * pocketsphinx hears best among espeak-ng's voices; 150 wpm is an ordinary conversational pace.
 */
export const TEST_SPEECH_VOICE: SpeechVoice = { voice: "en-us+klatt2", wordsPerMinute: 150 };

/** The voices the bench reports, espeak-ng's plain default first, so that sensitivity to the voice shows. */
export const BENCH_SPEECH_VOICES: readonly SpeechVoice[] = [
  { voice: "en-us", wordsPerMinute: 175 },
  { voice: "en-us+f2", wordsPerMinute: 150 },
  TEST_SPEECH_VOICE,
];

/** Why speech fixtures cannot be made here, or null when espeak-ng runs. */
export async function espeakMissingReason(): Promise<string | null> {
  try {
    await execFileAsync("espeak-ng", ["--version"], { timeout: 10_000 });
    return null;
  } catch (error) {
    return `espeak-ng is not installed (apt-get install espeak-ng): ${(error as Error).message}`;
  }
}

/** Speak `text` into `<dir>/<name>.wav` (espeak-ng's native 22.05 kHz mono PCM). Returns the path. */
export async function speakToWav(dir: string, name: string, text: string, voice: SpeechVoice = TEST_SPEECH_VOICE): Promise<string> {
  const file = path.join(dir, `${name}.wav`);
  // `--` so a sentence can never be read as an option.
  await execFileAsync("espeak-ng", ["-v", voice.voice, "-s", String(voice.wordsPerMinute), "-w", file, "--", text], { timeout: 30_000 });
  return file;
}

async function ffmpeg(args: string[]): Promise<void> {
  await execFileAsync("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", ...args], { timeout: 60_000 });
}

/** The spoken WAV re-encoded as a 44.1 kHz stereo MP3, as a phone or an editor would upload it. */
export async function speechAsMp3(wav: string): Promise<string> {
  const file = wav.replace(/\.wav$/, ".mp3");
  await ffmpeg(["-i", wav, "-ar", "44100", "-ac", "2", "-c:a", "libmp3lame", "-b:a", "96k", file]);
  return file;
}

/** A video of a plain still frame with the spoken WAV as its AAC soundtrack (H.264 + AAC in MP4). */
export async function speechAsVideo(wav: string): Promise<string> {
  const file = wav.replace(/\.wav$/, ".mp4");
  await ffmpeg([
    "-f", "lavfi", "-i", "color=c=0x4a6b8a:s=320x240:r=5",
    "-i", wav,
    "-map", "0:v", "-map", "1:a",
    "-c:v", "libx264", "-preset", "ultrafast", "-tune", "stillimage", "-pix_fmt", "yuv420p",
    "-c:a", "aac", "-b:a", "96k", "-ar", "44100",
    "-shortest", "-movflags", "+faststart", file,
  ]);
  return file;
}
