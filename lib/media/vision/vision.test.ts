import { readFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  __visionTestHooks,
  labelImage,
  labelPixels,
  OBJECT_INPUT_SIZE,
  shutdownVision,
  VisionError,
  visionModelName,
  warmUpVision,
  type ImageLabels,
} from ".";

const fixture = (name: string) => readFileSync(path.resolve("tests/fixtures/vision", name));
const labelsOf = (result: ImageLabels) => result.objects.map((o) => o.label);
const countOf = (result: ImageLabels, label: string) => result.objects.find((o) => o.label === label)?.count ?? 0;

async function rejection(promise: Promise<unknown>): Promise<VisionError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(VisionError);
  return error as VisionError;
}

let loadMs = 0;

beforeAll(async () => {
  ({ loadMs } = await warmUpVision());
}, 60_000);

afterAll(async () => {
  await shutdownVision();
});

describe("labelImage on photos", () => {
  it("finds the cat in a photo of a cat, and no face", async () => {
    const result = await labelImage(fixture("cat.jpg"));
    expect(loadMs).toBeGreaterThan(0);
    expect(result.model).toBe(`centernet-coco-${OBJECT_INPUT_SIZE}+facemesh-detection-full-192@human-models-3.0.4`);
    expect(result.model).toBe(visionModelName());
    expect(result.objects[0]).toMatchObject({ label: "cat", count: 1 });
    expect(result.objects[0]!.confidence).toBeGreaterThan(0.4);
    expect(labelsOf(result)).not.toContain("dog");
    expect(result.faces).toBe(0);
    // A tabby on a wooden floor: mostly brown.
    expect(result.colours[0]!.name).toBe("brown");
  });

  it("finds a person and a face in a portrait", async () => {
    const result = await labelImage(fixture("astronaut.jpg"));
    expect(result.objects[0]).toMatchObject({ label: "person", count: 1 });
    expect(result.faces).toBe(1);
  });

  it("counts two people side by side", async () => {
    const result = await labelImage(fixture("two-people.jpg"));
    expect(countOf(result, "person")).toBe(2);
    expect(result.faces).toBeGreaterThanOrEqual(1);
  });

  it("finds the cup in a photo of a coffee", async () => {
    const result = await labelImage(fixture("coffee.jpg"));
    expect(labelsOf(result)).toEqual(["cup"]);
    expect(result.faces).toBe(0);
  });

  it("labels a 320 px video frame, and raw RGB pixels the same as the encoded image", async () => {
    const frame = await sharp(fixture("cat.jpg")).resize(320).jpeg({ quality: 80 }).toBuffer();
    const fromJpeg = await labelImage(frame);
    expect(labelsOf(fromJpeg)).toContain("cat");
    const { data, info } = await sharp(frame).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const fromPixels = await labelPixels({ data, width: info.width, height: info.height, channels: 3 });
    expect(labelsOf(fromPixels)).toEqual(labelsOf(fromJpeg));
    expect(fromPixels.colours.map((c) => c.name)).toEqual(fromJpeg.colours.map((c) => c.name));
  });
});

describe("labelImage on plain pictures", () => {
  it("calls a plain red image red, with no objects and no faces", async () => {
    const red = await sharp({ create: { width: 400, height: 300, channels: 3, background: "#d32f2f" } }).png().toBuffer();
    const result = await labelImage(red);
    expect(result.colours).toEqual([{ name: "red", fraction: 1 }]);
    expect(result.objects).toEqual([]);
    expect(result.faces).toBe(0);
  });

  it("reports the shares of a two-colour WebP, largest first", async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200"><rect width="300" height="200" fill="#1565c0"/><rect x="300" width="100" height="200" fill="#fdd835"/></svg>`;
    const webp = await sharp(Buffer.from(svg)).webp({ lossless: true }).toBuffer();
    const result = await labelImage(webp);
    expect(result.colours.map((c) => c.name)).toEqual(["blue", "yellow"]);
    expect(result.colours[0]!.fraction).toBeCloseTo(0.75, 1);
    expect(result.colours[1]!.fraction).toBeCloseTo(0.25, 1);
  });

  it("leaves the transparent part of a PNG out of the colours", async () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="300"><circle cx="150" cy="150" r="90" fill="#2e7d32"/></svg>`;
    const result = await labelImage(await sharp(Buffer.from(svg)).png().toBuffer());
    expect(result.colours).toEqual([{ name: "green", fraction: 1 }]);
  });
});

describe("labelImage errors", () => {
  it("rejects bytes that are not an image with a clear error", async () => {
    const error = await rejection(labelImage(Buffer.from("this is not an image at all")));
    expect(error.code).toBe("invalid");
    expect(error.message).toMatch(/^cannot decode the image: /);
    const truncated = fixture("cat.jpg").subarray(0, 200);
    expect((await rejection(labelImage(truncated))).code).toBe("invalid");
    expect((await rejection(labelImage(Buffer.alloc(0)))).message).toBe("cannot label an empty image");
  });

  it("refuses images over the pixel limit before decoding them", async () => {
    const big = await sharp({ create: { width: 2000, height: 2000, channels: 3, background: "#fff" } }).png().toBuffer();
    const error = await rejection(labelImage(big, { maxInputPixels: 1_000_000 }));
    expect(error.code).toBe("invalid");
  });

  it("rejects raw pixels whose size does not match", async () => {
    const error = await rejection(labelPixels({ data: new Uint8Array(10), width: 4, height: 4, channels: 3 }));
    expect(error.code).toBe("invalid");
    expect(error.message).toMatch(/expected 48/);
  });

  it("rejects at once when aborted", async () => {
    const controller = new AbortController();
    controller.abort(new Error("gone"));
    expect((await rejection(labelImage(fixture("cat.jpg"), { signal: controller.signal }))).code).toBe("aborted");
  });

  it("reports a model failure as 'failed' and goes on working", async () => {
    const error = await rejection(labelImage(fixture("cat.jpg"), { objectInputSize: 100 }));
    expect(error.code).toBe("failed");
    expect(error.message).toMatch(/not a multiple of 32/);
    expect(labelsOf(await labelImage(fixture("cat.jpg")))).toContain("cat");
  });
});

describe("the vision worker", () => {
  it("is replaced after it crashes", async () => {
    await labelImage(fixture("cat.jpg"));
    const before = __visionTestHooks.state();
    expect(before.running).toBe(true);
    __visionTestHooks.crashWorker();
    await expect.poll(() => __visionTestHooks.state().failures, { timeout: 10_000 }).toBe(before.failures + 1);
    expect(__visionTestHooks.state().running).toBe(false);
    const after = await labelImage(fixture("cat.jpg"));
    expect(labelsOf(after)).toContain("cat");
    const state = __visionTestHooks.state();
    expect(state.threadId).not.toBe(before.threadId);
    expect(state.starts).toBe(before.starts + 1);
  }, 60_000);

  it("fails the request it was running when killed, and the next one gets a new worker", async () => {
    await labelImage(fixture("cat.jpg"));
    const pending = labelImage(fixture("astronaut.jpg"));
    // Once the request is with the worker (decoding on the main thread comes first); inference takes ~0.1 s.
    await expect.poll(() => __visionTestHooks.state().inFlight, { interval: 1 }).toBe(true);
    await __visionTestHooks.terminateWorker();
    const error = await rejection(pending);
    expect(error.code).toBe("failed");
    expect(labelsOf(await labelImage(fixture("astronaut.jpg")))).toContain("person");
  }, 60_000);
});
