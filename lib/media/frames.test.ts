import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { frameIntervalFor, frameSizeFor, frameTimesFor, sampleFrames } from "@/lib/media/frames";
import { probeMedia } from "@/lib/media/probe";
import { MediaToolError } from "@/lib/media/tools";
import { makeVideo, makeWav } from "@/tests/support/media-fixtures";

let dir = "";
let ramp = "";
let clip = "";
let hd = "";
let rotated = "";
let wav = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "frames-test-"));
  [ramp, clip, hd, rotated, wav] = await Promise.all([
    // Luminance = 20 × t, so a frame's mean luma / 20 tells which instant it shows.
    makeVideo(dir, { seconds: 10, width: 64, height: 48, withAudio: false, pattern: "time-ramp" }),
    makeVideo(dir, { seconds: 3, width: 320, height: 240, withAudio: true }),
    makeVideo(dir, { seconds: 1, width: 1280, height: 720, withAudio: false }),
    makeVideo(dir, { seconds: 1, width: 320, height: 240, withAudio: false, rotate: 90, name: "rotated.mp4" }),
    makeWav(dir, { seconds: 1 }),
  ]);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function meanLuma(jpeg: Buffer): Promise<number> {
  const stats = await sharp(jpeg).greyscale().stats();
  return stats.channels[0]!.mean;
}

describe("frameIntervalFor", () => {
  it("samples one frame per 2 s, spread evenly, capped at maxFrames", () => {
    expect(frameIntervalFor(30)).toBe(2);
    expect(frameIntervalFor(3)).toBe(1.5);
    expect(frameIntervalFor(31, { maxFrames: 30 })).toBeCloseTo(31 / 16, 3);
    expect(frameIntervalFor(600, { maxFrames: 30 })).toBe(20);
    expect(frameIntervalFor(7200, { maxFrames: 30 })).toBe(240);
    expect(frameIntervalFor(0.5)).toBe(0.5);
    expect(frameIntervalFor(null)).toBe(2);
    expect(frameIntervalFor(Number.NaN)).toBe(2);
    expect(frameIntervalFor(100, { maxFrames: 0 })).toBe(100);
  });

  it("predicts mid-slot sample times", () => {
    expect(frameTimesFor(10, 2)).toEqual([1, 3, 5, 7, 9]);
    expect(frameTimesFor(3, 1.5)).toEqual([0.75, 2.25]);
    expect(frameTimesFor(600, 20, 30)).toHaveLength(30);
    expect(frameTimesFor(3, 10)).toEqual([1.5]);
    expect(frameTimesFor(null, 2, 3)).toEqual([1, 3, 5]);
  });

  it("keeps the aspect ratio with even dimensions and never upscales", () => {
    expect(frameSizeFor(1280, 720)).toEqual({ width: 320, height: 180 });
    expect(frameSizeFor(1080, 1920)).toEqual({ width: 180, height: 320 });
    expect(frameSizeFor(320, 240)).toEqual({ width: 320, height: 240 });
    expect(frameSizeFor(101, 75)).toEqual({ width: 102, height: 76 });
    expect(frameSizeFor(1920, 1080, 224)).toEqual({ width: 224, height: 126 });
  });
});

describe("sampleFrames", () => {
  it("takes frames at the reported times, one ffmpeg pass", async () => {
    const frames = await sampleFrames(ramp);
    expect(frames.map((f) => f.timeSeconds)).toEqual([1, 3, 5, 7, 9]);
    expect(frames.map((f) => f.index)).toEqual([0, 1, 2, 3, 4]);
    for (const frame of frames) {
      expect(frame.jpeg.subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
      expect(frame).toMatchObject({ width: 64, height: 48 });
      // Within one source frame (0.04 s) plus JPEG rounding.
      expect(Math.abs((await meanLuma(frame.jpeg)) / 20 - frame.timeSeconds)).toBeLessThan(0.15);
    }
  });

  it("honours an explicit interval and maxFrames", async () => {
    const frames = await sampleFrames(ramp, { intervalSeconds: 0.5, maxFrames: 4 });
    expect(frames.map((f) => f.timeSeconds)).toEqual([0.25, 0.75, 1.25, 1.75]);
    for (const frame of frames) expect(Math.abs((await meanLuma(frame.jpeg)) / 20 - frame.timeSeconds)).toBeLessThan(0.15);
  });

  it("falls back to the middle frame when the interval exceeds the clip", async () => {
    const frames = await sampleFrames(ramp, { intervalSeconds: 60 });
    expect(frames).toHaveLength(1);
    expect(frames[0]!.timeSeconds).toBe(5);
    expect(Math.abs((await meanLuma(frames[0]!.jpeg)) / 20 - 5)).toBeLessThan(0.15);
  });

  it("samples a 3 s clip with audio at 0.75 s and 2.25 s, full size", async () => {
    const probe = await probeMedia(clip);
    const frames = await sampleFrames(clip, { probe });
    expect(frames.map((f) => f.timeSeconds)).toEqual(frameTimesFor(probe.durationSeconds, frameIntervalFor(probe.durationSeconds)));
    expect(frames.map((f) => f.timeSeconds)).toEqual([0.75, 2.25]);
    const meta = await sharp(frames[0]!.jpeg).metadata();
    expect([meta.width, meta.height, meta.format]).toEqual([320, 240, "jpeg"]);
    const small = await sampleFrames(clip, { probe, maxDimension: 160 });
    expect(small[0]).toMatchObject({ width: 160, height: 120 });
  });

  it("scales 720p down to 320×180 and follows rotation", async () => {
    const [frame] = await sampleFrames(hd);
    expect(frame).toMatchObject({ width: 320, height: 180, timeSeconds: 0.5 });
    expect((await sharp(frame!.jpeg).metadata()).width).toBe(320);
    const [upright] = await sampleFrames(rotated);
    expect(upright).toMatchObject({ width: 240, height: 320 });
    expect((await sharp(upright!.jpeg).metadata()).height).toBe(320);
  });

  it("rejects audio-only files and non-media with invalid-input", async () => {
    await expect(sampleFrames(wav)).rejects.toMatchObject({ name: "MediaToolError", code: "invalid-input" });
  });

  it("fails with timeout / aborted / missing-tool", async () => {
    const probe = await probeMedia(ramp);
    await expect(sampleFrames(ramp, { probe, timeoutMs: 1 })).rejects.toMatchObject({ code: "timeout" });
    const controller = new AbortController();
    controller.abort();
    await expect(sampleFrames(ramp, { probe, signal: controller.signal })).rejects.toBeInstanceOf(MediaToolError);
    await expect(sampleFrames(ramp, { probe, signal: controller.signal })).rejects.toMatchObject({ code: "aborted" });
    await expect(sampleFrames(ramp, { probe, tools: { ffmpeg: "/nonexistent/ffmpeg" } })).rejects.toMatchObject({ code: "missing-tool" });
  });
});
