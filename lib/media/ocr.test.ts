import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTextImage } from "@/tests/support/text-image";
import {
  OCR_ENGINE,
  OcrError,
  ocrEngineInfo,
  preprocessForOcr,
  recognizeText,
  shutdownOcr,
  warmUpOcr,
  type OcrResult,
} from "./ocr";

// Real tesseract.js worker with the local English model; nothing is downloaded.

const words = (text: string) => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];

function expectWords(result: OcrResult, expected: string): void {
  const got = new Set(words(result.text));
  const missing = words(expected).filter((word) => !got.has(word));
  expect(missing, `OCR read ${JSON.stringify(result.text)}`).toEqual([]);
}

async function rejection(promise: Promise<unknown>): Promise<OcrError> {
  try {
    await promise;
  } catch (error) {
    return error as OcrError;
  }
  throw new Error("expected a rejection");
}

/** A page of dense text: several seconds of recognition. */
async function densePage(): Promise<Buffer> {
  const line = "The quick brown fox jumps over the lazy dog while counting numbers";
  return makeTextImage(Array.from({ length: 25 }, (_, i) => `${i} ${line}`).join("\n"), { fontSize: 18 });
}

beforeAll(async () => {
  await warmUpOcr();
}, 60_000);

afterAll(async () => {
  await shutdownOcr();
});

describe("recognizeText", () => {
  it("reads rendered text back", async () => {
    const image = await makeTextImage("Free crypto giveaway\nSend your password to claim the prize", { fontSize: 28 });
    const result = await recognizeText(image, { timeoutMs: 20_000 });
    expectWords(result, "free crypto giveaway send your password to claim the prize");
    expect(result.text.split("\n")).toHaveLength(2);
    expect(result.engine).toBe(OCR_ENGINE);
    expect(result.engine).toBe("tesseract.js-7.0.0-eng-4.0.0_best_int");
    expect(result.confidence).toBeGreaterThan(80);
    expect(result.confidence).toBeLessThanOrEqual(100);
    expect(result.words).toBe(10);
  });

  it("reads small text (upscaled), EXIF-rotated photos and white text on transparency", async () => {
    const small = await makeTextImage("Meet me behind the old station at midnight", { fontSize: 8 });
    expect((await preprocessForOcr(small)).scale).toBeGreaterThan(2);
    expectWords(await recognizeText(small, { timeoutMs: 20_000 }), "meet me behind the old station at midnight");

    // Pixels stored rotated, EXIF orientation 6 says "rotate 90° clockwise to display".
    const upright = await makeTextImage("Rotated warning label", { fontSize: 30 });
    const stored = await sharp(upright).rotate(-90).withMetadata({ orientation: 6 }).jpeg({ quality: 90 }).toBuffer();
    expectWords(await recognizeText(stored, { timeoutMs: 20_000 }), "rotated warning label");

    const sticker = await makeTextImage("White caption on a sticker", { fontSize: 26, color: "white", background: "none" });
    expectWords(await recognizeText(sticker, { timeoutMs: 20_000 }), "white caption on a sticker");
  });

  it("returns empty text for blank images without running Tesseract", async () => {
    const white = await sharp({ create: { width: 640, height: 480, channels: 3, background: "#ffffff" } }).png().toBuffer();
    const transparent = await sharp({ create: { width: 300, height: 200, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .png()
      .toBuffer();
    const grey = await sharp({ create: { width: 400, height: 300, channels: 3, background: "#808080" } }).jpeg({ quality: 50 }).toBuffer();
    for (const image of [white, transparent, grey]) {
      expect(await recognizeText(image, { timeoutMs: 5000 })).toEqual({ text: "", confidence: 0, words: 0, engine: OCR_ENGINE });
    }
  });

  it("rejects bytes that are not an image with a typed error", async () => {
    for (const bytes of [Buffer.from("definitely not an image"), Buffer.alloc(0), (await makeTextImage("cut")).subarray(0, 40)]) {
      const err = await rejection(recognizeText(bytes, { timeoutMs: 5000 }));
      expect(err).toBeInstanceOf(OcrError);
      expect(err.code).toBe("invalid-image");
    }
  });

  it("serves concurrent calls one at a time, in call order, each with its own text", async () => {
    const texts = ["alpha bravo charlie", "delta echo foxtrot", "golf hotel india", "juliet kilo lima", "mike november oscar"];
    const images = await Promise.all(texts.map((text) => makeTextImage(text)));
    const finished: number[] = [];
    const results = await Promise.all(
      images.map(async (image, i) => {
        const result = await recognizeText(image, { timeoutMs: 30_000 });
        finished.push(i);
        return result;
      }),
    );
    expect(finished).toEqual([0, 1, 2, 3, 4]);
    results.forEach((result, i) => expect(result.text.toLowerCase()).toBe(texts[i]));
  });

  it("recovers from a timeout during recognition: the worker is replaced and the next call works", async () => {
    const dense = await densePage();
    const t0 = performance.now();
    await preprocessForOcr(dense);
    const preprocessMs = performance.now() - t0;
    const before = ocrEngineInfo();
    expect(before.state).toBe("ready");

    const err = await rejection(recognizeText(dense, { timeoutMs: Math.max(500, 3 * preprocessMs + 300) }));
    expect(err).toBeInstanceOf(OcrError);
    expect(err.code).toBe("timeout");
    expect(ocrEngineInfo().killedForTimeout).toBe(before.killedForTimeout + 1);
    expect(ocrEngineInfo().state).toBe("stopped");

    const next = await recognizeText(await makeTextImage("Still working afterwards"), { timeoutMs: 20_000 });
    expectWords(next, "still working afterwards");
    expect(ocrEngineInfo()).toMatchObject({ state: "ready", starts: before.starts + 1 });
  }, 60_000);

  it("drops a request aborted while queued without disturbing the running one", async () => {
    const dense = await densePage();
    const before = ocrEngineInfo();
    const running = recognizeText(dense, { timeoutMs: 30_000 });
    const controller = new AbortController();
    const queued = recognizeText(await makeTextImage("never read"), { timeoutMs: 30_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const err = await rejection(queued);
    expect(err.code).toBe("aborted");
    const result = await running;
    expect(words(result.text)).toEqual(expect.arrayContaining(["quick", "brown", "fox", "lazy", "dog"]));
    expect(result.words).toBeGreaterThan(250);
    expect(ocrEngineInfo()).toMatchObject({ starts: before.starts, killedForTimeout: before.killedForTimeout });
  }, 60_000);

  it("fails a running request with shut-down and starts a fresh worker for the next", async () => {
    const running = recognizeText(await densePage(), { timeoutMs: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 800));
    await shutdownOcr();
    expect((await rejection(running)).code).toBe("shut-down");
    expect(ocrEngineInfo().state).toBe("stopped");
    expectWords(await recognizeText(await makeTextImage("Back again"), { timeoutMs: 20_000 }), "back again");
  }, 60_000);

  it("survives unusable language data with engine-failed instead of crashing, then recovers", async () => {
    // tesseract.js answers a failed init with a reject and then a resolve for the same job; the
    // second message throws in its main-thread listener, which must not take the process down.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sieve-ocr-"));
    fs.writeFileSync(path.join(dir, "eng.traineddata.gz"), gzipSync(Buffer.from("not a tesseract model")));
    const image = await makeTextImage("Language data check");
    await shutdownOcr();
    process.env.SIEVE_OCR_LANG_PATH = dir;
    try {
      const err = await rejection(recognizeText(image, { timeoutMs: 20_000 }));
      expect(err).toBeInstanceOf(OcrError);
      expect(err.code).toBe("engine-failed");
      process.env.SIEVE_OCR_LANG_PATH = path.join(dir, "missing");
      expect((await rejection(recognizeText(image, { timeoutMs: 20_000 }))).message).toMatch(/SIEVE_OCR_LANG_PATH/);
    } finally {
      delete process.env.SIEVE_OCR_LANG_PATH;
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(ocrEngineInfo().state).toBe("stopped");
    expectWords(await recognizeText(image, { timeoutMs: 20_000 }), "language data check");
  }, 60_000);
});
