import sharp from "sharp";
import { afterAll, describe, expect, it } from "vitest";
import { decodeHeic, HeicDecodeError, isHeicFile, isHeicMimeType, shutdownHeicDecoder } from "@/lib/media/heic";
import { hasHeifEnc, makeHeic } from "@/tests/support/heic-fixtures";

const available = hasHeifEnc();

afterAll(async () => {
  await shutdownHeicDecoder();
});

describe("isHeicMimeType", () => {
  it("names HEIC and HEIF, not AVIF (sharp decodes that)", () => {
    expect(["image/heic", "image/heif", "image/heic-sequence", "image/HEIF"].every(isHeicMimeType)).toBe(true);
    expect(["image/avif", "image/png", null, undefined].some(isHeicMimeType)).toBe(false);
  });
});

describe.skipIf(!available)("decodeHeic (fixtures by heif-enc)", () => {
  it("recognises a HEIC file by its ftyp brand", async () => {
    expect(isHeicFile(await makeHeic(16, 16))).toBe(true);
    expect(isHeicFile(await sharp({ create: { width: 8, height: 8, channels: 3, background: "#000" } }).avif().toBuffer())).toBe(false);
    expect(isHeicFile(Buffer.from("short"))).toBe(false);
  });


  it("decodes an opaque HEIC to upright RGB pixels sharp can read", async () => {
    const heic = await makeHeic(64, 48);
    const decoded = await decodeHeic(heic);
    expect({ width: decoded.width, height: decoded.height, channels: decoded.channels }).toEqual({ width: 64, height: 48, channels: 3 });
    expect(decoded.data.length).toBe(64 * 48 * 3);
    const { data } = await sharp(decoded.data, { raw: { width: 64, height: 48, channels: 3 } }).raw().toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number) => [...data.subarray((y * 64 + x) * 3, (y * 64 + x) * 3 + 3)];
    const [lr, , lb] = pixel(8, 24);
    const [rr, , rb] = pixel(56, 24);
    expect(lr! > 150 && lb! < 80).toBe(true); // red on the left
    expect(rb! > 150 && rr! < 80).toBe(true); // blue on the right
  });

  it("keeps an alpha channel that is used", async () => {
    const decoded = await decodeHeic(await makeHeic(32, 32, { alpha: true }));
    expect(decoded.channels).toBe(4);
    expect(decoded.data.length).toBe(32 * 32 * 4);
    expect(decoded.data[3]).toBeLessThan(200); // the half-transparent red
  });

  it("refuses an image over maxPixels before decoding it", async () => {
    const heic = await makeHeic(100, 100);
    await expect(decodeHeic(heic, { maxPixels: 99 * 100 })).rejects.toMatchObject({ name: "HeicDecodeError", code: "too-large" });
    // The worker is still usable.
    expect((await decodeHeic(heic)).width).toBe(100);
  });

  it("keeps the event loop free while decoding", async () => {
    const heic = await makeHeic(2400, 1600);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = performance.now();
    try {
      const decoded = await decodeHeic(heic);
      expect(decoded.width).toBe(2400);
    } finally {
      clearInterval(timer);
    }
    const elapsed = performance.now() - started;
    // A blocked loop would tick about once; a free one about every 5 ms.
    expect(ticks).toBeGreaterThan(Math.min(10, elapsed / 20));
  });
});

describe("decodeHeic on bad input", () => {
  it("answers `invalid` for bytes that are not HEIF", async () => {
    const error = await decodeHeic(Buffer.from("definitely not an image")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HeicDecodeError);
    expect((error as HeicDecodeError).code).toBe("invalid");
  });

  it.skipIf(!available)("answers `invalid` for a truncated HEIC", async () => {
    const heic = await makeHeic(64, 64);
    await expect(decodeHeic(heic.subarray(0, Math.floor(heic.length / 2)))).rejects.toMatchObject({ code: "invalid" });
  });

  it("rejects at once when already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(decodeHeic(Buffer.alloc(10), { signal: controller.signal })).rejects.toMatchObject({ code: "aborted" });
  });
});
