/**
 * Speech recognition quality, in-process (no server): every sentence of tests/fixtures/speech/
 * sentences.json is spoken by espeak-ng (tests/support/speech-fixtures.ts), transcribed by the
 * pipeline's own transcribeAudio (pocketsphinx), and scored by word error rate against what was said.
 * It also reports what that costs moderation: how many harmful sentences the text classifier flags
 * (likelihood likely or very-likely, for the labelled category) when written, when heard, and when
 * heard and kept by the pipeline (which drops speech segments below NOISE_CONFIDENCE_BELOW).
 *
 * `npx tsx bench/speech-quality.ts`, or `BENCH_ONLY=speech npm run bench`. Needs espeak-ng, ffmpeg,
 * pocketsphinx. SPEECH_VOICES=en-us+klatt2@150,en-us@175 picks the voices (default: BENCH_SPEECH_VOICES);
 * the per-sentence table is printed for the first voice given, or the tests' voice by default.
 * Takes a few minutes (two pocketsphinx passes per sentence and voice).
 */
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { NOISE_CONFIDENCE_BELOW, transcribeAudio } from "@/lib/media/transcribe";
import { likelihoodForScore } from "@/lib/moderation/report";
import { TEXT_CATEGORIES, classifyText } from "@/lib/moderation/text/classify";
import { corpusWordErrorRate, wordErrors, type WordErrors } from "@/bench/word-error-rate";
import {
  BENCH_SPEECH_VOICES,
  espeakMissingReason,
  loadSpokenSentences,
  speakToWav,
  TEST_SPEECH_VOICE,
  type SpeechVoice,
  type SpokenSentence,
} from "@/tests/support/speech-fixtures";

export interface SentenceResult {
  sentence: SpokenSentence;
  transcript: string;
  /** What the pipeline classifies: the segments at or above NOISE_CONFIDENCE_BELOW. */
  keptTranscript: string;
  errors: WordErrors;
  flaggedWritten: string[];
  flaggedSpoken: string[];
  flaggedKept: string[];
  /** Seconds of speech and seconds spent transcribing it. */
  audioSeconds: number;
  transcribeSeconds: number;
}

export interface VoiceResult {
  voice: SpeechVoice;
  sentences: SentenceResult[];
  wordErrorRate: number;
  harmful: number;
  /** Harmful sentences flagged for their labelled category: from the written text, and from the transcript. */
  harmfulFlaggedWritten: number;
  harmfulFlaggedSpoken: number;
  /** … and from the part of the transcript the pipeline keeps. */
  harmfulFlaggedKept: number;
  benign: number;
  /** Benign sentences flagged for anything: written (the classifier's own false positives), and from the kept transcript. */
  benignFlaggedWritten: number;
  benignFlaggedKept: number;
  realTimeFactor: number;
}

/** Categories flagged the way the bench and the issue count them: likelihood likely or very-likely. */
function flaggedCategories(text: string): string[] {
  if (!text.trim()) return [];
  const result = classifyText(text);
  return TEXT_CATEGORIES.filter((c) => {
    const likelihood = likelihoodForScore(result.categories[c].score);
    return likelihood === "likely" || likelihood === "very-likely";
  });
}

const labelledCaught = (sentence: SpokenSentence, flagged: string[]) => sentence.categories.some((c) => flagged.includes(c));

export async function measureVoice(voice: SpeechVoice, sentences: readonly SpokenSentence[], dir: string): Promise<VoiceResult> {
  const results: SentenceResult[] = [];
  for (const sentence of sentences) {
    const wav = await speakToWav(dir, `${voice.voice}-${voice.wordsPerMinute}-${sentence.id}`, sentence.text, voice);
    const started = performance.now();
    const transcript = await transcribeAudio(wav);
    const kept = transcript.segments.filter((s) => (s.confidence ?? 1) >= NOISE_CONFIDENCE_BELOW).map((s) => s.text).join(" ");
    results.push({
      sentence,
      transcript: transcript.text,
      keptTranscript: kept,
      errors: wordErrors(sentence.text, transcript.text),
      flaggedWritten: flaggedCategories(sentence.text),
      flaggedSpoken: flaggedCategories(transcript.text),
      flaggedKept: flaggedCategories(kept),
      audioSeconds: transcript.audioSeconds,
      transcribeSeconds: (performance.now() - started) / 1000,
    });
  }
  const harmful = results.filter((r) => r.sentence.categories.length > 0);
  const benign = results.filter((r) => r.sentence.categories.length === 0);
  const audio = results.reduce((sum, r) => sum + r.audioSeconds, 0);
  return {
    voice,
    sentences: results,
    wordErrorRate: corpusWordErrorRate(results.map((r) => r.errors)),
    harmful: harmful.length,
    harmfulFlaggedWritten: harmful.filter((r) => labelledCaught(r.sentence, r.flaggedWritten)).length,
    harmfulFlaggedSpoken: harmful.filter((r) => labelledCaught(r.sentence, r.flaggedSpoken)).length,
    harmfulFlaggedKept: harmful.filter((r) => labelledCaught(r.sentence, r.flaggedKept)).length,
    benign: benign.length,
    benignFlaggedWritten: benign.filter((r) => r.flaggedWritten.length > 0).length,
    benignFlaggedKept: benign.filter((r) => r.flaggedKept.length > 0).length,
    realTimeFactor: audio === 0 ? 0 : results.reduce((sum, r) => sum + r.transcribeSeconds, 0) / audio,
  };
}

const pct = (n: number) => `${(n * 100).toFixed(1)}%`;
const voiceName = (v: SpeechVoice) => `${v.voice}@${v.wordsPerMinute}`;

function printSentences(result: VoiceResult): void {
  console.log(`\n  per sentence (${voiceName(result.voice)}): WER | labelled | flagged written → heard and kept | heard as ("(dropped)": below the confidence floor)`);
  for (const r of result.sentences) {
    const labelled = r.sentence.categories.join(",") || "-";
    const written = r.flaggedWritten.join(",") || "-";
    const kept = r.flaggedKept.join(",") || "-";
    const dropped = r.keptTranscript === r.transcript ? "" : " (dropped)";
    console.log(`    ${pct(r.errors.rate).padStart(6)}  ${labelled.padEnd(17)} ${written.padEnd(19)} → ${kept.padEnd(19)} "${r.transcript}"${dropped}`);
  }
}

function parseVoices(spec: string | undefined): SpeechVoice[] {
  if (!spec?.trim()) return [...BENCH_SPEECH_VOICES];
  return spec.split(",").map((item) => {
    const [voice, rate] = item.trim().split("@");
    const wordsPerMinute = Number(rate ?? 175);
    if (!voice || !Number.isInteger(wordsPerMinute) || wordsPerMinute < 80 || wordsPerMinute > 450) {
      throw new Error(`SPEECH_VOICES: "${item}" is not voice@wordsPerMinute`);
    }
    return { voice, wordsPerMinute };
  });
}

/** The bench part: one summary row per voice, then the per-sentence table for one voice. */
export async function benchSpeechQuality(): Promise<VoiceResult[] | null> {
  console.log("\nspeech quality (espeak-ng → pocketsphinx; flagged = likely or very-likely)");
  const missing = await espeakMissingReason();
  if (missing) {
    console.log(`  skipped: ${missing}`);
    return null;
  }
  const voices = parseVoices(process.env.SPEECH_VOICES);
  const detailed = process.env.SPEECH_VOICES ? voices[0]! : TEST_SPEECH_VOICE;
  const sentences = loadSpokenSentences();
  const dir = await mkdtemp(path.join(os.tmpdir(), "sieve-speech-bench-"));
  try {
    console.log(`  ${sentences.length} sentences; voice         WER   harmful flagged: written → heard → kept   benign flagged: written → kept   × real time`);
    const results: VoiceResult[] = [];
    for (const voice of voices) {
      const r = await measureVoice(voice, sentences, dir);
      results.push(r);
      const harmful = [r.harmfulFlaggedWritten, r.harmfulFlaggedSpoken, r.harmfulFlaggedKept].map((n) => `${n}/${r.harmful}`).join(" → ");
      const benign = [r.benignFlaggedWritten, r.benignFlaggedKept].map((n) => `${n}/${r.benign}`).join(" → ");
      console.log(`    ${voiceName(voice).padEnd(22)} ${pct(r.wordErrorRate).padStart(6)}   ${harmful.padEnd(34)} ${benign.padEnd(32)} ${r.realTimeFactor.toFixed(2)}`);
    }
    const detail = results.find((r) => voiceName(r.voice) === voiceName(detailed));
    if (detail) printSentences(detail);
    return results;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  benchSpeechQuality().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
