import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shutdownHeicDecoder } from "@/lib/media/heic";
import { imagePreview, PREVIEW_MAX_SIDE } from "@/lib/media/preview";
import { escapeXml, websiteCardPreview, websiteCardSvg, wrapText } from "@/lib/media/preview-card";
import { pdfFirstPagePreview, posterTimeFor, videoPosterPreview } from "@/lib/media/preview-tools";
import { hasHeifEnc, makeHeic } from "@/tests/support/heic-fixtures";
import { makeJpeg, makePdf, makeVideo } from "@/tests/support/media-fixtures";

let dir = "";

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "preview-test-"));
});

afterAll(async () => {
  await shutdownHeicDecoder();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** What the preview really is, read back from its bytes. */
async function decoded(data: Buffer) {
  const meta = await sharp(data).metadata();
  return { format: meta.format, width: meta.width, height: meta.height, pages: meta.pages ?? 1, exif: meta.exif !== undefined, icc: meta.icc !== undefined };
}

describe("imagePreview", () => {
  it("shrinks a large image to fit 1024 px as WebP, and never enlarges a small one", async () => {
    const large = await sharp({ create: { width: 3000, height: 1500, channels: 3, background: "#336699" } }).png().toBuffer();
    const preview = await imagePreview(large);
    expect({ width: preview.width, height: preview.height }).toEqual({ width: PREVIEW_MAX_SIDE, height: 512 });
    expect(await decoded(preview.data)).toMatchObject({ format: "webp", width: 1024, height: 512 });

    const small = await imagePreview(await makeJpeg({ width: 120, height: 80 }));
    expect(await decoded(small.data)).toMatchObject({ format: "webp", width: 120, height: 80 });
  });

  it("applies EXIF orientation and strips metadata", async () => {
    // Stored 200×100, shown rotated 90° (orientation 6): upright it is 100×200.
    const jpeg = await sharp(await makeJpeg({ width: 200, height: 100 })).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    expect((await sharp(jpeg).metadata()).orientation).toBe(6);
    const preview = await imagePreview(jpeg);
    expect(await decoded(preview.data)).toEqual({ format: "webp", width: 100, height: 200, pages: 1, exif: false, icc: false });
  });

  it("rasterizes SVG at its own size, or straight at 1024 px when larger", async () => {
    const svg = (w: number, h: number) =>
      Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="100%" height="100%" fill="green"/></svg>`);
    expect(await decoded((await imagePreview(svg(64, 32))).data)).toMatchObject({ format: "webp", width: 64, height: 32 });
    expect(await decoded((await imagePreview(svg(4096, 2048))).data)).toMatchObject({ format: "webp", width: 1024, height: 512 });
  });

  it("does not let an SVG read local files", async () => {
    const png = await sharp({ create: { width: 50, height: 50, channels: 3, background: "#ff0000" } }).png().toBuffer();
    const file = path.join(dir, "secret.png");
    await writeFile(file, png);
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="50" height="50"><image width="50" height="50" xlink:href="file://${file}"/></svg>`;
    const preview = await imagePreview(Buffer.from(svg)).catch(() => null);
    if (preview) {
      const { channels } = await sharp(preview.data).stats();
      expect(channels[0]!.mean).toBeLessThan(50); // nothing red was drawn
    }
  });

  it("previews an animation as its first frame", async () => {
    const frame = (color: string) => sharp({ create: { width: 40, height: 30, channels: 3, background: color } }).png().toBuffer();
    const gif = await sharp([await frame("#00ff00"), await frame("#0000ff"), await frame("#ff0000")], { join: { animated: true } }).gif().toBuffer();
    expect((await sharp(gif).metadata()).pages).toBe(3);
    const preview = await imagePreview(gif);
    expect(await decoded(preview.data)).toMatchObject({ format: "webp", width: 40, height: 30, pages: 1 });
    const { channels } = await sharp(preview.data).stats();
    expect(channels[1]!.mean).toBeGreaterThan(200); // the green first frame
  });

  it("refuses bytes that are not an image, and images over the pixel limit", async () => {
    await expect(imagePreview(Buffer.from("not an image at all"))).rejects.toThrow();
    const png = await sharp({ create: { width: 200, height: 200, channels: 3, background: "#000" } }).png().toBuffer();
    await expect(imagePreview(png, { maxInputPixels: 100 * 100 })).rejects.toThrow(/pixel limit/i);
  });

  it.skipIf(!hasHeifEnc())("decodes HEIC through decodeHeic", async () => {
    const heic = await makeHeic(1600, 1200, { background: "#884422" });
    const preview = await imagePreview(heic);
    expect(await decoded(preview.data)).toMatchObject({ format: "webp", width: 1024, height: 768 });
    // AVIF, the other HEIF codec, is sharp's own.
    const avif = await sharp({ create: { width: 1200, height: 600, channels: 3, background: "#123" } }).avif().toBuffer();
    expect((await imagePreview(avif)).height).toBe(512);
  });
});

describe("pdfFirstPagePreview", () => {
  it("renders page 1 with its longest side at 1024 px", async () => {
    const file = path.join(dir, "doc.pdf");
    await writeFile(file, makePdf({ pages: [{ text: "First page", jpeg: await makeJpeg({ width: 100, height: 60 }) }, { text: "Second page" }] }));
    const preview = await pdfFirstPagePreview(file);
    const meta = await decoded(preview.data);
    expect(meta).toMatchObject({ format: "webp", height: 1024 });
    expect(meta.width).toBeGreaterThanOrEqual(790); // US Letter: 612 × 792 pt
    expect(meta.width).toBeLessThanOrEqual(792);
  });

  it("fails on a file that is not a PDF", async () => {
    const file = path.join(dir, "bad.pdf");
    await writeFile(file, "%PDF-1.4 broken");
    await expect(pdfFirstPagePreview(file)).rejects.toMatchObject({ name: "MediaToolError" });
  });

  it("runs the pdftoppm binary the tool paths name", async () => {
    const file = path.join(dir, "page.pdf");
    await writeFile(file, makePdf({ pages: [{ text: "Page" }] }));
    await expect(pdfFirstPagePreview(file, { tools: { pdftoppm: "/nonexistent/pdftoppm" } })).rejects.toMatchObject({ name: "MediaToolError", code: "missing-tool" });
  });
});

describe("videoPosterPreview", () => {
  it("takes a frame at 10% or 1 s, whichever is earlier", () => {
    expect(posterTimeFor(3)).toBeCloseTo(0.3);
    expect(posterTimeFor(60)).toBe(1);
    expect(posterTimeFor(null)).toBe(0);
    expect(posterTimeFor(0)).toBe(0);
  });

  it("renders the poster frame at the video's size, upright", async () => {
    const [clip, rotated] = await Promise.all([
      makeVideo(dir, { seconds: 2, width: 320, height: 240, withAudio: false }),
      makeVideo(dir, { seconds: 1, width: 320, height: 240, withAudio: false, rotate: 90, name: "rotated.mp4" }),
    ]);
    expect(await decoded((await videoPosterPreview(clip)).data)).toMatchObject({ format: "webp", width: 320, height: 240 });
    expect(await decoded((await videoPosterPreview(rotated)).data)).toMatchObject({ format: "webp", width: 240, height: 320 });
  });

  it("fails on a file without video", async () => {
    const file = path.join(dir, "not-video.mp4");
    await writeFile(file, "nothing here");
    await expect(videoPosterPreview(file)).rejects.toMatchObject({ name: "MediaToolError" });
  });
});

describe("website card", () => {
  it("renders a 1024×640 WebP from the page's title, host and text", async () => {
    const preview = await websiteCardPreview({ title: "Example title", host: "example.com", text: "Some visible text. ".repeat(200) });
    expect(await decoded(preview.data)).toMatchObject({ format: "webp", width: 1024, height: 640 });
  });

  it("draws page text as text, never as markup", async () => {
    const hostile = `</text><image href="http://evil.example/x.png"/><text>&amp; \u0001 \ud800 "quoted" 'single'`;
    const svg = websiteCardSvg({ title: hostile, host: "a<b>", text: hostile });
    expect(svg).not.toContain("<image");
    expect(svg).not.toContain("http://evil.example/x.png\"/>");
    expect(svg).not.toMatch(/[\u0001\ud800]/);
    expect(escapeXml(`<&>"'`)).toBe("&#60;&#38;&#62;&#34;&#39;");
    const preview = await websiteCardPreview({ title: hostile, host: null, text: hostile });
    expect(preview.width).toBe(1024);
  });

  it("wraps words, cuts words longer than a line and ends cut text with an ellipsis", () => {
    expect(wrapText("one two three", 10, 0.5, 100, 3)).toEqual(["one two three"]);
    expect(wrapText("aaaa bbbb cccc", 10, 0.5, 25, 3)).toEqual(["aaaa", "bbbb", "cccc"]);
    expect(wrapText("x".repeat(12), 10, 0.5, 25, 3)).toEqual(["xxxxx", "xxxxx", "xx"]);
    const cut = wrapText("aaaa bbbb cccc dddd", 10, 0.5, 25, 2);
    expect(cut).toHaveLength(2);
    expect(cut[1]!.endsWith("…")).toBe(true);
  });
});
