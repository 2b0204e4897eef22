import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { featParamsWithCepstralMean, lastCepstralMean, wavOpening } from "@/lib/media/transcribe-calibration";
import { transcribeAudio } from "@/lib/media/transcribe";
import { espeakMissingReason, speakToWav } from "@/tests/support/speech-fixtures";

/** Lines as Debian's pocketsphinx_continuous 0.8+5prealpha logs them on stderr, two utterances. */
const LOG = `INFO: feat.c(713): Initializing feature stream to type: '1s_c_d_dd', ceplen=13, CMN='batch', VARNORM='no', AGC='none'
INFO: cmn_live.c(120): Update from < 41.00 -5.29 -0.12  5.09  2.48 -4.07 -1.37 -1.78 -5.08 -2.05 -6.45 -1.42  1.17 >
INFO: cmn_live.c(138): Update to   < 52.10 10.02 -9.00 11.50 -8.25  0.40 -6.00 -11.30  2.10 -9.10  3.60 -2.40 -1.30 >
INFO: ngram_search_fwdtree.c(1553):     2210 words recognized (14/fr)
INFO: cmn_live.c(120): Update from < 52.10 10.02 -9.00 11.50 -8.25  0.40 -6.00 -11.30  2.10 -9.10  3.60 -2.40 -1.30 >
INFO: cmn_live.c(138): Update to   < 60.68 21.49 -18.28 22.49 -18.91  1.37 -12.12 -22.63  4.89 -18.27  7.28 -4.83 -2.60 >
INFO: ngram_search.c(1253): lattice start node <s>.0 end node </s>.154
`;

const FEAT_PARAMS = `-lowerf 130
-upperf 6800
-cmn batch
-cmninit 41.00,-5.29,-0.12,5.09,2.48,-4.07,-1.37,-1.78,-5.08,-2.05,-6.45,-1.42,1.17
-model ptm
`;

describe("cepstral mean calibration", () => {
  it("reads the last running mean pocketsphinx logged", () => {
    expect(lastCepstralMean(LOG)).toEqual([60.68, 21.49, -18.28, 22.49, -18.91, 1.37, -12.12, -22.63, 4.89, -18.27, 7.28, -4.83, -2.6]);
    expect(lastCepstralMean("INFO: nothing was heard\n")).toBeNull();
    expect(lastCepstralMean("Update to < 1.0 nan 2.0 >")).toBeNull();
  });

  it("writes the mean into a copy of the model's feature parameters, or declines", () => {
    const mean = lastCepstralMean(LOG)!;
    const rewritten = featParamsWithCepstralMean(FEAT_PARAMS, mean)!;
    expect(rewritten).toContain("-cmninit 60.68,21.49,-18.28,22.49,-18.91,1.37,-12.12,-22.63,4.89,-18.27,7.28,-4.83,-2.60\n");
    expect(rewritten.replace(/^-cmninit .*$/m, "")).toBe(FEAT_PARAMS.replace(/^-cmninit .*$/m, ""));
    expect(featParamsWithCepstralMean(FEAT_PARAMS, mean.slice(0, 3))).toBeNull();
    expect(featParamsWithCepstralMean("-lowerf 130\n", mean)).toBeNull();
  });

  describe("on files", () => {
    let dir = "";
    beforeAll(async () => {
      dir = await mkdtemp(path.join(os.tmpdir(), "transcribe-calibration-test-"));
    });
    afterAll(async () => {
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("cuts the opening of a long recording with a consistent header, and leaves a short one alone", async () => {
      const wav = path.join(dir, "tone.wav");
      await promisify(execFile)("ffmpeg", [
        "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "sine=frequency=300:sample_rate=16000:duration=3",
        "-ac", "1", "-c:a", "pcm_s16le", "-map_metadata", "-1", "-fflags", "+bitexact", "-flags:a", "+bitexact", wav,
      ]);
      const opening = await wavOpening(wav, 1, dir);
      expect(opening).not.toBe(wav);
      const bytes = await readFile(opening);
      expect(bytes.length).toBe(44 + 32_000);
      expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8);
      expect(bytes.readUInt32LE(40)).toBe(32_000);
      // Same format chunk and "data" tag; only the two sizes differ.
      expect(bytes.subarray(8, 40)).toEqual((await readFile(wav)).subarray(8, 40));
      expect(await wavOpening(wav, 5, dir)).toBe(wav);
      expect((await stat(wav)).size).toBe(44 + 3 * 32_000);
    });

    it("a spoken sentence is heard word for word through the calibrated pass", async (context) => {
      const missing = await espeakMissingReason();
      if (missing) context.skip(missing);
      const wav = await speakToWav(dir, "spoken", "My sister is learning to play the piano this year.", { voice: "en-us+klatt2", wordsPerMinute: 150 });
      const transcript = await transcribeAudio(wav);
      expect(transcript.text).toContain("learning to play the piano");
    }, 60_000);
  });
});
