import { open, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { runTool, toolBinary, type Deadline, type MediaToolPaths } from "@/lib/media/tools";

/**
 * Cepstral-mean calibration for pocketsphinx 0.8 (`pocketsphinx_continuous -infile`).
 *
 * The acoustic model was trained on per-utterance mean-normalised cepstra, but the continuous decoder
 * normalises with a running mean that starts from the model's `-cmninit` and is only updated when an
 * utterance ends. A short recording (a voice note, a clip) is therefore decoded entirely against the
 * model's prior mean, and a recording whose level or timbre differs from the training data is heard
 * badly. A first pass over the opening seconds measures this recording's mean (pocketsphinx logs it as
 * "Update to < … >"); the real pass starts from it through `-featparams` (the model's feat.params
 * overrides a command-line `-cmninit`, so a copy with the new line is written).
 *
 * Measured on 27 espeak-ng sentences (bench/speech-quality.ts), word error rate before → after:
 * espeak's default voice 86% → 59%, en-us+f2 67% → 39%, en-us+klatt2 45% → 36%. The cost is a
 * second decoder start and at most CALIBRATION_SECONDS more decoding (short clips: ≈0.35× → ≈0.65×
 * real time). Only synthetic speech was measured: no recorded human speech is available offline.
 */

/** How much of the recording the calibration pass decodes: enough speech for a stable mean, cheap on long files. */
export const CALIBRATION_SECONDS = 30;

/**
 * Half-bit dither: digital silence (synthesised or edited audio, padded tracks) has zero energy, whose
 * logarithm drags the cepstral mean and the noise estimate far from anything the model saw. A fixed
 * seed keeps transcripts reproducible.
 */
export const POCKETSPHINX_DITHER_ARGS = ["-dither", "yes", "-seed", "1"] as const;

const WAV_HEADER_BYTES = 44;
const BYTES_PER_SECOND = 16_000 * 2;

/** The last running cepstral mean pocketsphinx logged ("cmn_live.c(138): Update to < 60.68 21.49 … >"), or null. */
export function lastCepstralMean(log: string): number[] | null {
  const updates = [...log.matchAll(/Update to\s+<([^>]*)>/g)];
  const last = updates.at(-1)?.[1];
  if (!last) return null;
  const values = last.trim().split(/\s+/).map(Number);
  return values.length > 0 && values.every(Number.isFinite) ? values : null;
}

/**
 * The model's feat.params with its `-cmninit` line replaced by `mean`; null when the model has no
 * `-cmninit` line or a different cepstrum length (then calibration is skipped rather than guessed).
 */
export function featParamsWithCepstralMean(featParams: string, mean: readonly number[]): string | null {
  const line = /^-cmninit\s+(\S+)\s*$/m.exec(featParams);
  if (!line || line[1]!.split(",").length !== mean.length) return null;
  return featParams.replace(line[0], `-cmninit ${mean.map((v) => v.toFixed(2)).join(",")}`);
}

/** A copy of the first `seconds` of a plain 16 kHz mono WAV (header sizes patched), or the file itself when shorter. */
export async function wavOpening(wav: string, seconds: number, dir: string): Promise<string> {
  const want = WAV_HEADER_BYTES + seconds * BYTES_PER_SECOND;
  const handle = await open(wav, "r");
  try {
    if ((await handle.stat()).size <= want) return wav;
    const bytes = Buffer.alloc(want);
    await handle.read(bytes, 0, want, 0);
    bytes.writeUInt32LE(want - 8, 4);
    bytes.writeUInt32LE(want - WAV_HEADER_BYTES, 40);
    const opening = path.join(dir, "calibration.wav");
    await writeFile(opening, bytes);
    return opening;
  } finally {
    await handle.close();
  }
}

export interface CalibrationInput {
  /** Plain 16 kHz mono PCM WAV (as transcribe.ts writes it). */
  wav: string;
  /** Private temp folder for the calibration files. */
  dir: string;
  model: { hmm: string; lm: string; dict: string };
  deadline: Deadline;
  signal?: AbortSignal;
  tools?: MediaToolPaths;
}

/**
 * Run the calibration pass; returns the path of a feat.params starting from this recording's mean, or
 * null when nothing was heard (no utterance ended) or the model cannot take one — the real pass then
 * uses the model's own parameters.
 */
export async function calibrateCepstralMean(input: CalibrationInput): Promise<string | null> {
  let featParams: string;
  try {
    featParams = await readFile(path.join(input.model.hmm, "feat.params"), "utf8");
  } catch {
    return null;
  }
  const opening = await wavOpening(input.wav, CALIBRATION_SECONDS, input.dir);
  const result = await runTool(
    toolBinary("pocketsphinx_continuous", input.tools),
    ["-infile", opening, "-samprate", "16000", "-hmm", input.model.hmm, "-lm", input.model.lm, "-dict", input.model.dict, ...POCKETSPHINX_DITHER_ARGS],
    // The mean is in the log on stderr; its last update comes shortly before the end.
    { signal: input.signal, timeoutMs: input.deadline.remaining(), maxStdoutBytes: 1024 * 1024, stderrTailBytes: 64 * 1024, cwd: input.dir },
  );
  const mean = lastCepstralMean(result.stderr);
  const calibrated = mean && featParamsWithCepstralMean(featParams, mean);
  if (!calibrated) return null;
  const file = path.join(input.dir, "feat.params");
  await writeFile(file, calibrated);
  return file;
}
