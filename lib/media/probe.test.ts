import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseFfprobeJson, probeMedia } from "@/lib/media/probe";
import { MediaToolError } from "@/lib/media/tools";
import { makeVideo, makeWav } from "@/tests/support/media-fixtures";

let dir = "";
let video = "";
let mute = "";
let wav = "";
let rotated = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "probe-test-"));
  [video, mute, wav, rotated] = await Promise.all([
    makeVideo(dir, { seconds: 3, width: 320, height: 240, withAudio: true }),
    makeVideo(dir, { seconds: 2, width: 160, height: 90, withAudio: false }),
    makeWav(dir, { seconds: 2, frequency: 440 }),
    makeVideo(dir, { seconds: 1, width: 320, height: 240, withAudio: false, rotate: 90, name: "rotated.mp4" }),
  ]);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function errorOf(promise: Promise<unknown>): Promise<MediaToolError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MediaToolError);
  return error as MediaToolError;
}

describe("probeMedia", () => {
  it("describes a 3 s H.264/AAC MP4", async () => {
    const probe = await probeMedia(video);
    expect(probe.durationSeconds).toBeCloseTo(3, 1);
    expect(probe).toMatchObject({ hasVideo: true, hasAudio: true, width: 320, height: 240, videoCodec: "h264", audioCodec: "aac", hasCoverArt: false });
    expect(probe.formatName).toContain("mp4");
    expect(probe.frameRate).toBe(25);
  });

  it("describes a video without audio and a WAV without video", async () => {
    expect(await probeMedia(mute)).toMatchObject({ hasVideo: true, hasAudio: false, width: 160, height: 90 });
    const audio = await probeMedia(wav);
    expect(audio).toMatchObject({ hasVideo: false, hasAudio: true, formatName: "wav" });
    expect(audio.width).toBeUndefined();
    expect(audio.durationSeconds).toBeCloseTo(2, 1);
  });

  it("reports display size for rotated video", async () => {
    expect(await probeMedia(rotated)).toMatchObject({ width: 240, height: 320, rotation: 90 });
  });

  it("rejects files that are not audio/video with invalid-input", async () => {
    const text = path.join(dir, "notes.mp4");
    await writeFile(text, "just some text, not a video\n".repeat(50));
    expect((await errorOf(probeMedia(text))).code).toBe("invalid-input");

    // Still images are not accepted here (image2/png_pipe are not allowed demuxers).
    const png = path.join(dir, "still.png");
    await sharp({ create: { width: 32, height: 32, channels: 3, background: "#f00" } }).png().toFile(png);
    expect((await errorOf(probeMedia(png))).code).toBe("invalid-input");

    expect((await errorOf(probeMedia(path.join(dir, "missing.mp4")))).code).toBe("invalid-input");
  });

  it("refuses playlists that would make ffmpeg read other files", async () => {
    const playlist = path.join(dir, "evil.m3u8");
    await writeFile(playlist, `#EXTM3U\n#EXT-X-TARGETDURATION:3\n#EXTINF:3,\n${video}\n#EXT-X-ENDLIST\n`);
    expect((await errorOf(probeMedia(playlist))).code).toBe("invalid-input");
    const concat = path.join(dir, "list.txt");
    await writeFile(concat, `ffconcat version 1.0\nfile '${video}'\n`);
    expect((await errorOf(probeMedia(concat))).code).toBe("invalid-input");
  });

  it("reports a missing ffprobe as missing-tool", async () => {
    expect((await errorOf(probeMedia(video, { tools: { ffprobe: "/nonexistent/ffprobe" } }))).code).toBe("missing-tool");
  });

  it("times out", async () => {
    expect((await errorOf(probeMedia(video, { timeoutMs: 1 }))).code).toBe("timeout");
  });
});

describe("parseFfprobeJson", () => {
  it("does not count cover art as video and falls back to stream durations", () => {
    const probe = parseFfprobeJson({
      format: { format_name: "mp3" },
      streams: [
        { codec_type: "audio", codec_name: "mp3", duration: "12.5" },
        { codec_type: "video", codec_name: "mjpeg", width: 500, height: 500, disposition: { attached_pic: 1 } },
      ],
    });
    expect(probe).toMatchObject({ hasVideo: false, hasAudio: true, hasCoverArt: true, durationSeconds: 12.5 });
    expect(probe.width).toBeUndefined();
  });

  it("applies non-square pixels and reports unknown duration as null", () => {
    const probe = parseFfprobeJson({
      format: { format_name: "matroska,webm" },
      streams: [{ codec_type: "video", codec_name: "vp8", width: 720, height: 576, sample_aspect_ratio: "16:15", side_data_list: [{ rotation: -90 }] }],
    });
    expect(probe).toMatchObject({ width: 576, height: 768, rotation: 270, durationSeconds: null });
  });

  it("rejects output without audio or video streams", () => {
    expect(() => parseFfprobeJson({ format: { format_name: "tty" }, streams: [{ codec_type: "data" }] })).toThrow(MediaToolError);
    expect(() => parseFfprobeJson({})).toThrow(/not a recognised media file/);
  });
});
