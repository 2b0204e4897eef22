import zlib from "node:zlib";
import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { isApiError } from "@/lib/core/errors";
import { contentTypeOf, MAX_INPUT_PIXELS, resizedSize, transformImage } from "@/lib/cdn/transform";
import type { Fit, ImageTransformStep } from "@/lib/cdn/types";
import { shutdownHeicDecoder } from "@/lib/media/heic";
import { hasHeifEnc, makeHeic } from "@/tests/support/heic-fixtures";

/** A noisy photo-like JPEG, so quality changes the size. */
function photo(width: number, height: number, format: "jpeg" | "png" | "tiff" = "jpeg"): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 40 } } }).toFormat(format).toBuffer();
}

/** An animated GIF of `frames` frames of width×height, each a different colour, 100 ms apart. */
function animatedGif(width: number, height: number, frames: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * frames * 4);
  for (let frame = 0; frame < frames; frame++) {
    for (let i = 0; i < width * height; i++) raw.set([(frame * 80) % 256, 60, 200 - frame * 40, 255], (frame * width * height + i) * 4);
  }
  return sharp(raw, { raw: { width, height: height * frames, channels: 4, pageHeight: height } })
    .gif({ delay: Array(frames).fill(100), loop: 0 })
    .toBuffer();
}

/** A PNG that claims 50000×50000 (2.5 GB of pixels) in a few KB: header, a little zlib data, no more. */
function pngBomb(side = 50_000): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale, deflate, no filter, no interlace
  const rows = zlib.deflateSync(Buffer.alloc(4 * 1024 * 1024), { level: 9 });
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", header), chunk("IDAT", rows), chunk("IEND", Buffer.alloc(0))]);
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isApiError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("the transform succeeded");
}

async function decoded(data: Buffer) {
  const metadata = await sharp(data).metadata();
  return { format: metadata.format, width: metadata.width, height: metadata.pageHeight ?? metadata.height, pages: metadata.pages ?? 1 };
}

afterAll(async () => {
  await shutdownHeicDecoder();
});

describe("transformImage: resizing", () => {
  it("fit=inside never enlarges: a 300×200 image under a 1600 px box stays 300×200", async () => {
    const result = await transformImage(await photo(300, 200), [{ width: 1600, fit: "inside", format: "webp" }]);
    expect(await decoded(result.data)).toEqual({ format: "webp", width: 300, height: 200, pages: 1 });
    const boxed = await transformImage(await photo(300, 200), [{ width: 1600, height: 1600, fit: "inside" }]);
    expect(await decoded(boxed.data)).toMatchObject({ width: 300, height: 200 });
    const other = await transformImage(await photo(300, 200), [{ width: 600 }]);
    expect(await decoded(other.data)).toMatchObject({ width: 600, height: 400 });
  });

  it("1200×800 JPEG, width=300, format=webp → a 300×200 WebP", async () => {
    const result = await transformImage(await photo(1200, 800), [{ width: 300, format: "webp" }]);
    expect(result).toMatchObject({ format: "webp", contentType: "image/webp", width: 300, height: 200 });
    expect(await decoded(result.data)).toEqual({ format: "webp", width: 300, height: 200, pages: 1 });
  });

  it.each<[Fit | undefined, number, number]>([
    [undefined, 300, 300],
    ["cover", 300, 300],
    ["contain", 300, 300],
    ["fill", 300, 300],
    ["inside", 300, 200],
    ["outside", 450, 300],
  ])("fit %s with width=300,height=300 → %i×%i", async (fit, width, height) => {
    const result = await transformImage(await photo(1200, 800), [{ width: 300, height: 300, fit }]);
    expect(await decoded(result.data)).toMatchObject({ format: "jpeg", width, height });
    expect([result.width, result.height]).toEqual([width, height]);
  });

  it("predicts sharp's output size (±1 pixel), for every fit and one or two sides", async () => {
    const input = await photo(1201, 799);
    const fits: (Fit | undefined)[] = [undefined, "cover", "contain", "fill", "inside", "outside"];
    const sides: ImageTransformStep[] = [{ width: 333 }, { height: 77 }, { width: 333, height: 77 }, { width: 2000, height: 50 }];
    for (const fit of fits) {
      for (const side of sides) {
        const step = { ...side, fit };
        const result = await transformImage(input, [{ ...step, format: "png" }]);
        const predicted = resizedSize({ width: 1201, height: 799 }, step);
        expect(Math.abs(predicted.width - result.width), JSON.stringify(step)).toBeLessThanOrEqual(1);
        expect(Math.abs(predicted.height - result.height), JSON.stringify(step)).toBeLessThanOrEqual(1);
      }
    }
  });

  it("applies steps in order: each resize works on the previous result", async () => {
    const result = await transformImage(await photo(1200, 800), [{ width: 600, format: "jpeg" }, { height: 100, format: "png" }]);
    expect(await decoded(result.data)).toEqual({ format: "png", width: 150, height: 100, pages: 1 });
    // cover crops 1200×800 to 400×400; the second step then only scales that square.
    const cropped = await transformImage(await photo(1200, 800), [{ width: 400, height: 400 }, { width: 100 }]);
    expect([cropped.width, cropped.height]).toEqual([100, 100]);
  });

  it("no width or height keeps the size, even when the input is larger than a resize may produce", async () => {
    const result = await transformImage(await photo(9000, 10), [{ format: "png" }]);
    expect(await decoded(result.data)).toMatchObject({ width: 9000, height: 10 });
  });
});

describe("transformImage: formats", () => {
  it.each([
    ["webp", "webp"],
    ["avif", "heif"],
    ["jpeg", "jpeg"],
    ["png", "png"],
    ["gif", "gif"],
  ] as const)("format=%s is what the bytes are", async (format, decodedAs) => {
    const result = await transformImage(await photo(640, 480), [{ width: 320, format }]);
    expect(result.contentType).toBe(contentTypeOf(format));
    expect(await decoded(result.data)).toMatchObject({ format: decodedAs, width: 320, height: 240 });
    if (format === "avif") expect((await sharp(result.data).metadata()).compression).toBe("av1");
  });

  it("keeps jpeg, png and gif when no format is asked; svg and tiff become webp", async () => {
    const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><rect width="100" height="50" fill="red"/></svg>`);
    expect((await transformImage(await photo(64, 64), [{ width: 32 }])).format).toBe("jpeg");
    expect((await transformImage(await photo(64, 64, "png"), [])).format).toBe("png");
    expect((await transformImage(await animatedGif(20, 10, 1), [])).format).toBe("gif");
    const fromSvg = await transformImage(svg, [{ width: 200 }]);
    expect(await decoded(fromSvg.data)).toMatchObject({ format: "webp", width: 200, height: 100 });
    expect((await transformImage(await photo(64, 64, "tiff"), [])).format).toBe("webp");
  });

  it("quality changes the size; the last step naming a format or quality decides", async () => {
    const input = await photo(800, 600);
    const low = await transformImage(input, [{ format: "webp", quality: 10 }]);
    const high = await transformImage(input, [{ format: "webp", quality: 95 }]);
    expect(low.data.length).toBeLessThan(high.data.length / 2);
    const last = await transformImage(input, [{ format: "png", quality: 95 }, { format: "jpeg", quality: 10 }, { width: 800 }]);
    expect(last.format).toBe("jpeg");
    expect(last.data.length).toBeLessThan((await transformImage(input, [{ format: "jpeg", quality: 95 }])).data.length / 2);
  });

  it("JPEG output of a transparent image is flattened on white", async () => {
    const transparent = await sharp({ create: { width: 8, height: 8, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } }).png().toBuffer();
    const result = await transformImage(transparent, [{ format: "jpeg" }]);
    const pixel = [...(await sharp(result.data).raw().toBuffer()).subarray(0, 3)];
    expect(pixel.every((value) => value > 245)).toBe(true);
  });
});

describe("transformImage: orientation and metadata", () => {
  it("applies the EXIF orientation and strips the EXIF", async () => {
    const rotated = await sharp(await photo(120, 80)).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    expect((await sharp(rotated).metadata()).orientation).toBe(6);
    const upright = await transformImage(rotated, []);
    expect(await decoded(upright.data)).toMatchObject({ width: 80, height: 120 });
    const resized = await transformImage(rotated, [{ width: 40, format: "webp" }]);
    expect(await decoded(resized.data)).toMatchObject({ format: "webp", width: 40, height: 60 });
    const metadata = await sharp(resized.data).metadata();
    expect([metadata.orientation, metadata.exif, metadata.icc]).toEqual([undefined, undefined, undefined]);
  });

  it("converts CMYK to sRGB and keeps no profile", async () => {
    const cmyk = await sharp(await photo(64, 64)).toColourspace("cmyk").jpeg().toBuffer();
    expect((await sharp(cmyk).metadata()).space).toBe("cmyk");
    const result = await transformImage(cmyk, [{ format: "webp" }]);
    const metadata = await sharp(result.data).metadata();
    expect([metadata.space, metadata.channels, metadata.hasProfile]).toEqual(["srgb", 3, false]);
  });
});

describe("transformImage: animation", () => {
  it("GIF → webp or gif keeps every frame and its delay", async () => {
    const gif = await animatedGif(40, 30, 3);
    for (const format of ["webp", "gif"] as const) {
      const result = await transformImage(gif, [{ width: 20, format }]);
      expect([result.width, result.height]).toEqual([20, 15]);
      const metadata = await sharp(result.data).metadata();
      expect([metadata.format, metadata.pages, metadata.width, metadata.pageHeight ?? metadata.height]).toEqual([format, 3, 20, 15]);
      expect(metadata.delay).toEqual([100, 100, 100]);
    }
  });

  it("two resizing steps keep the animation (through raw pixels)", async () => {
    const result = await transformImage(await animatedGif(40, 30, 3), [{ width: 20 }, { width: 10, format: "webp" }]);
    const metadata = await sharp(result.data).metadata();
    expect([metadata.pages, metadata.width, metadata.pageHeight ?? metadata.height, metadata.loop]).toEqual([3, 10, 8, 0]);
    expect(metadata.delay).toEqual([100, 100, 100]);
  });

  it("GIF → png, jpeg or avif is the first frame", async () => {
    const gif = await animatedGif(40, 30, 3);
    for (const format of ["png", "jpeg", "avif"] as const) {
      const result = await transformImage(gif, [{ format }]);
      expect(await decoded(result.data)).toMatchObject({ width: 40, height: 30, pages: 1 });
    }
    const png = await transformImage(gif, [{ format: "png" }]);
    const [red, green, blue] = await sharp(png.data).raw().toBuffer();
    expect([red, green, blue]).toEqual([0, 60, 200]);
  });

  it("counts every decoded frame against the input pixel limit", async () => {
    const gif = await animatedGif(40, 30, 3); // 1200 pixels a frame
    const refused = await refusal(transformImage(gif, [{ format: "webp" }], { maxInputPixels: 3000 }));
    expect(refused.code).toBe("asset/transform-failed");
    expect(refused.message).toContain("40×30 × 3 frames = 3600 pixels");
    expect((await transformImage(gif, [{ format: "png" }], { maxInputPixels: 3000 })).format).toBe("png");
  });
});

describe("transformImage: limits and failures", () => {
  it("refuses a decompression-bomb PNG from its header, fast and without decoding it", async () => {
    const bomb = pngBomb();
    expect(bomb.length).toBeLessThan(20_000);
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const refused = await refusal(transformImage(bomb, [{ width: 100, format: "webp" }]));
    const elapsed = performance.now() - started;
    expect(refused.code).toBe("asset/transform-failed");
    expect(refused.message).toContain("50000×50000");
    expect(refused.message).toContain(String(MAX_INPUT_PIXELS));
    expect(elapsed).toBeLessThan(1000);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(64 * 1024 * 1024);
  });

  it("refuses an input over a lower maxInputPixels", async () => {
    const refused = await refusal(transformImage(await photo(100, 100), [], { maxInputPixels: 5000 }));
    expect(refused).toMatchObject({ code: "asset/transform-failed" });
    expect(refused.message).toContain("100×100 = 10000 pixels");
  });

  it.each<[string, ImageTransformStep, number, number]>([
    ["fit=outside blow-up", { width: 8192, height: 8192, fit: "outside" }, 1200, 800],
    ["8192×8192 fill (67 Mpx)", { width: 8192, height: 8192, fit: "fill" }, 1200, 800],
    ["width=8192 of a tall image", { width: 8192 }, 100, 1000],
  ])("refuses a resize over the output limits (%s) before decoding", async (_, step, width, height) => {
    const refused = await refusal(transformImage(await photo(width, height), [step]));
    expect(refused.code).toBe("asset/invalid-transform-options");
    expect(refused.message).toMatch(/at most 8192 pixels per side and 40000000 pixels per frame/);
  });

  it("refuses an animation whose frames together exceed the budget", async () => {
    const refused = await refusal(transformImage(await animatedGif(40, 30, 3), [{ width: 4000, format: "webp" }], { maxInputPixels: 30_000_000 }));
    expect(refused.code).toBe("asset/invalid-transform-options");
    expect(refused.message).toContain("4000×3000 × 3 frames");
  });

  it("undecodable or truncated bytes → transform-failed with sharp's reason", async () => {
    const garbage = await refusal(transformImage(Buffer.from("definitely not an image"), []));
    expect(garbage.code).toBe("asset/transform-failed");
    expect(garbage.message).toMatch(/unsupported image format/);
    const jpeg = await photo(400, 300);
    const truncated = await refusal(transformImage(jpeg.subarray(0, jpeg.length / 2), [{ format: "webp" }]));
    expect(truncated.code).toBe("asset/transform-failed");
    expect(truncated.message).toMatch(/^The image could not be transformed: .+/);
  });

  it("contentTypeOf names every format", () => {
    expect(["webp", "avif", "jpeg", "png", "gif"].map((f) => contentTypeOf(f as never))).toEqual([
      "image/webp",
      "image/avif",
      "image/jpeg",
      "image/png",
      "image/gif",
    ]);
  });
});

describe.skipIf(!hasHeifEnc())("transformImage: HEIC (sharp cannot decode HEVC; lib/media/heic.ts does)", () => {
  it("a HEIC becomes a WebP by default, resized", async () => {
    const heic = await makeHeic(64, 48);
    expect((await sharp(heic).metadata()).format).toBe("heif");
    const result = await transformImage(heic, [{ width: 32 }]);
    expect(await decoded(result.data)).toEqual({ format: "webp", width: 32, height: 24, pages: 1 });
    const refused = await refusal(transformImage(heic, [], { maxInputPixels: 1000 }));
    expect(refused.code).toBe("asset/transform-failed");
  });
});
