import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { shutdownHeicDecoder } from "@/lib/media/heic";
import { hasHeifEnc, makeHeic } from "@/tests/support/heic-fixtures";
import { imageForJudgement, JUDGE_MAX_SIDE } from "./image-input";

afterAll(async () => {
  await shutdownHeicDecoder();
});

const heic = (width: number, height: number) => makeHeic(width, height, { background: { r: 90, g: 160, b: 60 } });

describe("imageForJudgement", () => {
  it("passes a small image through as uploaded", async () => {
    const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: "#123456" } }).png().toBuffer();
    expect(await imageForJudgement(png, "image/png", { width: 20, height: 20 })).toEqual({ ok: true, data: png, mimeType: "image/png", downscaledFrom: null });
  });

  it.skipIf(!hasHeifEnc())("judges HEIC as a PNG of its decoded pixels (sharp cannot decode HEVC)", async () => {
    const input = await imageForJudgement(await heic(300, 200), "image/heic", { width: 300, height: 200 });
    if (!input.ok) throw new Error(input.reason);
    expect(input).toMatchObject({ mimeType: "image/png", convertedFrom: "heic", downscaledFrom: null });
    expect(await sharp(input.data).metadata()).toMatchObject({ format: "png", width: 300, height: 200 });
    expect(input.pixels).toMatchObject({ width: 300, height: 200, channels: 3 });
  });

  it.skipIf(!hasHeifEnc())("recognises HEIC by its bytes and downscales a large one like any large image", async () => {
    const input = await imageForJudgement(await heic(JUDGE_MAX_SIDE + 200, 64), "application/octet-stream", null);
    if (!input.ok) throw new Error(input.reason);
    expect(input.downscaledFrom).toEqual({ width: JUDGE_MAX_SIDE + 200, height: 64 });
    expect((await sharp(input.data).metadata()).width).toBe(JUDGE_MAX_SIDE);
  });

  it("judges an image declared HEIC that sharp reads as another format as that format", async () => {
    const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: "#123456" } }).png().toBuffer();
    expect(await imageForJudgement(png, "image/heic", null)).toEqual({ ok: true, data: png, mimeType: "image/heic", downscaledFrom: null });
  });

  it("reports a HEIC it cannot decode, so the decision fails closed", async () => {
    const input = await imageForJudgement(Buffer.from("not a heic file at all"), "image/heic", null);
    expect(input).toMatchObject({ ok: false, reason: expect.stringMatching(/HEIC image could not be decoded/) });
  });
});
