import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MediaToolError } from "@/lib/media/tools";
import { extractAudioDurationSeconds, parsePocketsphinxOutput, transcribeAudio } from "@/lib/media/transcribe";
import { makeVideo, makeWav } from "@/tests/support/media-fixtures";

/**
 * Recorded stdout of Debian's `pocketsphinx_continuous -infile x.wav -time yes` (0.8+5prealpha+1-15,
 * en-us model) on 20 s of synthetic voiced babble: hypothesis line, then `word start end posterior` lines,
 * fillers ([SPEECH], <sil>), an alternate pronunciation `fifth(2)` and an utterance with an empty hypothesis.
 */
const RECORDED = `ah
<s> 0.000 0.020 1.000000
[SPEECH] 0.030 0.660 1.000000
<sil> 0.670 0.950 1.000000
[SPEECH] 0.960 1.230 0.999800
ah 1.240 1.830 0.969666
<sil> 1.840 1.990 0.998900
[SPEECH] 2.000 2.400 1.000100
</s> 2.410 2.770 1.000000
oh fifth
<s> 3.380 3.510 0.999600
[SPEECH] 3.520 3.640 0.893318
<sil> 3.650 3.730 0.859661
[SPEECH] 3.740 3.830 0.977553
<sil> 3.840 4.040 0.992229
oh 4.050 4.560 0.847793
<sil> 4.570 4.740 0.999900
fifth(2) 4.750 5.230 0.048896
[SPEECH] 5.240 5.400 0.963479
<sil> 5.410 6.000 0.999600
<sil> 6.010 6.090 0.559357
</s> 6.100 6.940 1.000000
oh oh oh oh oh oh
<s> 7.390 7.940 0.999600
oh 7.950 8.120 0.310294
<sil> 8.130 8.260 0.999600
oh 8.270 8.460 0.068617
<sil> 8.470 8.750 1.000000
oh 8.760 8.900 0.592585
<sil> 8.910 9.020 0.881955
oh 9.030 9.200 0.922646
<sil> 9.210 9.430 0.999800
oh 9.440 9.590 0.542987
<sil> 9.600 10.220 1.000000
oh 10.230 10.350 0.092682
</s> 10.360 10.950 1.000000
oh
<s> 11.390 13.030 0.999700
oh 13.040 13.190 0.082572
<sil> 13.200 14.140 0.975502
</s> 14.150 15.000 1.000000
but
<s> 15.380 15.460 0.999800
but 15.470 15.650 0.131502
<sil> 15.660 16.290 0.999900
<sil> 16.300 17.830 0.999800
</s> 17.840 18.970 1.000000

<s> 19.390 19.800 0.999900
</s> 19.810 19.990 1.000000
`;

describe("parsePocketsphinxOutput", () => {
  it("groups timed words into utterance segments, dropping fillers and pronunciation variants", () => {
    const segments = parsePocketsphinxOutput(RECORDED);
    expect(segments.map(({ startSeconds, endSeconds, text }) => ({ startSeconds, endSeconds, text }))).toEqual([
      { startSeconds: 1.24, endSeconds: 1.83, text: "ah" },
      { startSeconds: 4.05, endSeconds: 5.23, text: "oh fifth" },
      { startSeconds: 7.95, endSeconds: 10.35, text: "oh oh oh oh oh oh" },
      { startSeconds: 13.04, endSeconds: 13.19, text: "oh" },
      { startSeconds: 15.47, endSeconds: 15.65, text: "but" },
    ]);
    expect(segments[0]!.confidence).toBeCloseTo(0.97, 2);
    expect(segments[1]!.confidence).toBeCloseTo((0.847793 + 0.048896) / 2, 3);
  });

  it("splits an utterance at long pauses", () => {
    const out = "hello there world\n<s> 0.000 0.100 1.0\nhello 0.100 0.500 0.9\nthere 0.500 0.900 0.8\n<sil> 0.900 2.500 1.0\nworld 2.500 3.000 0.7\n</s> 3.000 3.100 1.0\n";
    expect(parsePocketsphinxOutput(out).map((s) => [s.startSeconds, s.endSeconds, s.text])).toEqual([
      [0.1, 0.9, "hello there"],
      [2.5, 3, "world"],
    ]);
  });

  it("handles silence, hypothesis-only output, utterances without a hypothesis line, and stray log lines", () => {
    expect(parsePocketsphinxOutput("")).toEqual([]);
    // The real output for 3 s of a 440 Hz tone.
    expect(parsePocketsphinxOutput("\n<s> 0.000 0.100 0.999900\n</s> 0.110 0.630 1.000000\n")).toEqual([]);
    // -time no: hypotheses only.
    expect(parsePocketsphinxOutput("go forward ten meters\n\nturn left\n").map((s) => s.text)).toEqual(["go forward ten meters", "turn left"]);
    // Two utterances' timings back to back, with a log line in between.
    const segments = parsePocketsphinxOutput(
      "<s> 0.0 0.1 1.0\nyes 0.1 0.4 0.9\n</s> 0.4 0.5 1.0\nINFO: ngram_search.c(1248): lattice start node <s>.0\n<s> 5.0 5.1 1.0\nno 5.1 5.3 0.9\n",
    );
    expect(segments.map((s) => [s.startSeconds, s.text])).toEqual([
      [0.1, "yes"],
      [5.1, "no"],
    ]);
  });
});

describe("transcribeAudio", () => {
  let dir = "";
  let tone = "";
  let silence = "";
  let video = "";
  let mute = "";

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "transcribe-test-"));
    [tone, silence, video, mute] = await Promise.all([
      makeWav(dir, { seconds: 3, frequency: 440 }),
      makeWav(dir, { seconds: 2, frequency: 0 }),
      makeVideo(dir, { seconds: 2, width: 160, height: 120, withAudio: true, frequency: 300 }),
      makeVideo(dir, { seconds: 1, width: 160, height: 120, withAudio: false }),
    ]);
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("transcribes a tone without throwing", async () => {
    const result = await transcribeAudio(tone);
    expect(result.engine).toMatch(/^pocketsphinx-\S+$/);
    expect(result.model).toBe("en-us");
    expect(result.audioSeconds).toBeCloseTo(3, 1);
    expect(result).toMatchObject({ hasAudio: true, truncated: false });
    expect(typeof result.text).toBe("string");
    for (const s of result.segments) expect(s.endSeconds).toBeGreaterThanOrEqual(s.startSeconds);
  });

  it("returns empty text for silence", async () => {
    const result = await transcribeAudio(silence);
    expect(result).toMatchObject({ text: "", segments: [], hasAudio: true });
  });

  it("reads the audio track of a video, and reports videos without audio", async () => {
    const result = await transcribeAudio(video);
    expect(result.audioSeconds).toBeCloseTo(2, 1);
    expect(await transcribeAudio(mute)).toMatchObject({ text: "", segments: [], hasAudio: false, audioSeconds: 0 });
    expect(await extractAudioDurationSeconds(video)).toBeCloseTo(2, 1);
    expect(await extractAudioDurationSeconds(mute)).toBeNull();
  });

  it("only transcribes the first maxDurationSeconds", async () => {
    const result = await transcribeAudio(tone, { maxDurationSeconds: 1 });
    expect(result).toMatchObject({ audioSeconds: 1, truncated: true });
  });

  it("fails with typed errors", async () => {
    const notMedia = path.join(dir, "speech.wav");
    await writeFile(notMedia, "RIFF? no, just text");
    await expect(transcribeAudio(notMedia)).rejects.toMatchObject({ name: "MediaToolError", code: "invalid-input" });
    await expect(transcribeAudio(tone, { tools: { pocketsphinx_continuous: "/nonexistent/pocketsphinx_continuous" } })).rejects.toMatchObject({
      code: "missing-tool",
    });
    await expect(transcribeAudio(tone, { modelDir: "/nonexistent/model" })).rejects.toMatchObject({ code: "missing-tool" });
    await expect(transcribeAudio(tone, { tools: { ffmpeg: "/nonexistent/ffmpeg" } })).rejects.toMatchObject({ code: "missing-tool" });
    await expect(transcribeAudio(tone, { timeoutMs: 150 })).rejects.toBeInstanceOf(MediaToolError);
    await expect(transcribeAudio(tone, { timeoutMs: 150 })).rejects.toMatchObject({ code: "timeout" });
  });
});
