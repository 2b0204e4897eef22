import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_THRESHOLDS } from "../policy";
import { combineProviders } from "../providers/combine";
import { ProviderError, type ProviderInput } from "../providers/types";
import { buildReport, CATEGORIES } from "../report";
import {
  __nsfwTestHooks,
  createNsfwProvider,
  imageLabelsFrom,
  NSFW_CLASSES,
  NSFW_PROVIDER_VERSION,
  NSFWJS_VERSION,
  nsfwScores,
  sampleFrameIndices,
  shutdownNsfw,
  warmUpNsfw,
  type NsfwProbabilities,
} from "./nsfw";

const provider = createNsfwProvider();
const opts = { timeoutMs: 20_000 };

let png: Buffer;
let jpeg: Buffer;
let loadMs = 0;

function shapesSvg(width: number, height: number): Buffer {
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">` +
      `<defs><linearGradient id="g"><stop offset="0" stop-color="#1e3a8a"/><stop offset="1" stop-color="#10b981"/></linearGradient></defs>` +
      `<rect width="${width}" height="${height}" fill="url(#g)"/>` +
      `<circle cx="${width * 0.3}" cy="${height * 0.4}" r="${height / 4}" fill="#f59e0b"/>` +
      `<rect x="${width * 0.6}" y="${height * 0.5}" width="${width / 4}" height="${height / 3}" fill="#ef4444"/></svg>`,
  );
}

const image = (data: Uint8Array, mimeType = "image/png"): ProviderInput => ({ kind: "image", data, mimeType });

async function rejection(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

function expectUnit(x: unknown) {
  expect(typeof x).toBe("number");
  expect(x).toBeGreaterThanOrEqual(0);
  expect(x).toBeLessThanOrEqual(1);
}

beforeAll(async () => {
  png = await sharp(shapesSvg(640, 480)).png().toBuffer();
  jpeg = await sharp(png).jpeg({ quality: 85 }).toBuffer();
  ({ loadMs } = await warmUpNsfw());
}, 60_000);

afterAll(async () => {
  await shutdownNsfw();
});

describe("score mapping (pure)", () => {
  const oneHot = (c: (typeof NSFW_CLASSES)[number]): NsfwProbabilities =>
    Object.fromEntries(NSFW_CLASSES.map((k) => [k, k === c ? 1 : 0])) as NsfwProbabilities;

  it("maps explicit classes high, suggestive to 'possible' and safe classes to 0", () => {
    expect(nsfwScores(oneHot("Porn"))).toEqual({ score: 1, qualifiers: { nudity: 0.9, "sexual-activity": 0.5 } });
    expect(nsfwScores(oneHot("Hentai"))).toEqual({ score: 1, qualifiers: { nudity: 0.9, "sexual-activity": 0.5 } });
    expect(nsfwScores(oneHot("Sexy"))).toEqual({ score: 0.5, qualifiers: { nudity: 0.35, "sexual-activity": 0 } });
    expect(nsfwScores(oneHot("Neutral"))).toEqual({ score: 0, qualifiers: { nudity: 0, "sexual-activity": 0 } });
    expect(nsfwScores(oneHot("Drawing"))).toEqual({ score: 0, qualifiers: { nudity: 0, "sexual-activity": 0 } });
    // A mix: 40% porn + 40% sexy crosses the default 0.6 threshold, 80% sexy alone does not.
    expect(nsfwScores({ Drawing: 0, Hentai: 0, Neutral: 0.2, Porn: 0.4, Sexy: 0.4 }).score).toBeCloseTo(0.6);
    expect(nsfwScores({ Drawing: 0, Hentai: 0, Neutral: 0.2, Porn: 0, Sexy: 0.8 }).score).toBeCloseTo(0.4);
  });

  it("gives search labels only for confident classes, most likely first", () => {
    expect(imageLabelsFrom({ classes: { Drawing: 0.7, Hentai: 0.01, Neutral: 0.29, Porn: 0, Sexy: 0 } })).toEqual(["drawing"]);
    expect(imageLabelsFrom({ classes: { Drawing: 0.05, Hentai: 0, Neutral: 0.45, Porn: 0, Sexy: 0.5 } })).toEqual(["sexy", "neutral"]);
    expect(imageLabelsFrom({ classes: { Drawing: 0.3, Hentai: 0.1, Neutral: 0.3, Porn: 0.1, Sexy: 0.2 } })).toEqual([]);
    expect(imageLabelsFrom(null)).toEqual([]);
    expect(imageLabelsFrom({ categoryScores: { sexual: 1 } })).toEqual([]);
  });

  it("samples animated images evenly, first and last frame included", () => {
    expect(sampleFrameIndices(1, 8)).toEqual([0]);
    expect(sampleFrameIndices(3, 8)).toEqual([0, 1, 2]);
    expect(sampleFrameIndices(100, 4)).toEqual([0, 33, 66, 99]);
  });
});

describe("nsfwjs provider", () => {
  it("names the installed nsfwjs version and model, and judges only sexual, only for images and frames", async () => {
    const pkg = JSON.parse(await readFile(path.resolve("node_modules/nsfwjs/package.json"), "utf8")) as { version: string };
    expect(NSFWJS_VERSION).toBe(pkg.version);
    expect(provider.id).toBe("nsfwjs");
    expect(provider.version).toBe(`nsfwjs-${pkg.version}-mobilenetv2-224+map1`);
    expect(provider.version).toBe(NSFW_PROVIDER_VERSION);
    expect(provider.supports("image")).toEqual(["sexual"]);
    expect(provider.supports("frame")).toEqual(["sexual"]);
    expect(provider.supports("text")).toEqual([]);
    expect(loadMs).toBeGreaterThan(0);
  });

  it("scores a generated neutral picture (PNG and JPEG) as very unlikely sexual", async () => {
    for (const [data, mime] of [
      [png, "image/png"],
      [jpeg, "image/jpeg"],
    ] as const) {
      const result = await provider.classify(image(data, mime), opts);
      const sexual = result.categories.sexual!;
      expect(Object.keys(result.categories)).toEqual(["sexual"]);
      expect(sexual.score).toBeLessThan(0.15);
      expectUnit(sexual.qualifiers?.nudity);
      expectUnit(sexual.qualifiers?.["sexual-activity"]);
      const details = result.details as { model: string; classes: Record<string, number> };
      expect(details.model).toBe("nsfwjs-4.4.0-mobilenetv2-224");
      expect(Object.keys(details.classes).sort()).toEqual([...NSFW_CLASSES].sort());
      for (const p of Object.values(details.classes)) expectUnit(p);
      expect(Object.values(details.classes).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 2);
      const labels = imageLabelsFrom(result.details);
      expect(labels.length).toBeGreaterThan(0);
      for (const label of labels) expect(["drawing", "neutral"]).toContain(label);
    }
  });

  it("handles greyscale, transparent, WebP and TIFF input and treats video frames like images", async () => {
    const inputs = [
      await sharp(png).grayscale().jpeg().toBuffer(),
      await sharp(png).ensureAlpha(0.5).png().toBuffer(),
      await sharp(png).webp().toBuffer(),
      await sharp(png).tiff().toBuffer(),
    ];
    for (const data of inputs) {
      const result = await provider.classify(image(data), opts);
      expect(result.categories.sexual!.score).toBeLessThan(0.15);
    }
    const frame = await sharp(png).resize(224, 224).png().toBuffer();
    const asImage = await provider.classify(image(frame), opts);
    const asFrame = await provider.classify({ kind: "frame", data: frame, mimeType: "image/png" }, opts);
    expect(asFrame).toEqual(asImage);
  });

  it("classifies every frame of an animated GIF and says which one it reports", async () => {
    const frames = await Promise.all(
      ["#1e3a8a", "#10b981", "#f59e0b"].map((c) => sharp({ create: { width: 120, height: 90, channels: 3, background: c } }).png().toBuffer()),
    );
    const gif = await sharp(frames, { join: { animated: true } }).gif().toBuffer();
    const result = await provider.classify(image(gif, "image/gif"), opts);
    expect(result.categories.sexual!.score).toBeLessThan(0.35);
    expect((result.details as { frames: unknown }).frames).toMatchObject({ total: 3, sampled: 3 });
  });

  it("goes through combine: sexual evaluated for images, everything not-supported for text", async () => {
    const combined = await combineProviders([provider], image(png), opts);
    expect(combined.categories.sexual).toMatchObject({ status: "evaluated" });
    for (const c of CATEGORIES.filter((c) => c !== "sexual")) {
      expect(combined.categories[c]).toEqual({ status: "not-evaluated", reason: "not-supported" });
    }
    const report = buildReport({ categories: combined.categories, thresholds: DEFAULT_THRESHOLDS });
    expect(report.flagged).toBe(false);
    expect(report.categories.sexual).toMatchObject({
      status: "evaluated",
      likelihood: "very-unlikely",
      qualifiers: { nudity: { status: "evaluated" }, "sexual-activity": { status: "evaluated" } },
    });

    const text = await combineProviders([provider], { kind: "text", text: "hello" }, opts);
    expect(text.categories.sexual).toEqual({ status: "not-evaluated", reason: "not-supported" });
    expect(text.providers[0]?.outcome).toEqual({ status: "not-applicable" });
  });

  it("refuses text and undecodable bytes with a malformed error instead of a score", async () => {
    expect((await rejection(provider.classify({ kind: "text", text: "hi" }, opts))).code).toBe("malformed");
    const garbage = new TextEncoder().encode("this is not an image at all");
    const bad = await rejection(provider.classify(image(garbage), opts));
    expect(bad.code).toBe("malformed");
    expect(bad.providerId).toBe("nsfwjs");
    expect((await rejection(provider.classify(image(new Uint8Array(0)), opts))).code).toBe("malformed");
    const truncated = jpeg.subarray(0, Math.floor(jpeg.length / 2));
    expect((await rejection(provider.classify(image(truncated, "image/jpeg"), opts))).code).toBe("malformed");
    // Through combine the category is unavailable, never scored.
    const combined = await combineProviders([provider], image(garbage), opts);
    expect(combined.categories.sexual).toEqual({ status: "not-evaluated", reason: "unavailable" });
  });

  it("honours abort and timeout, and keeps working afterwards", async () => {
    const aborted = new AbortController();
    aborted.abort();
    expect((await rejection(provider.classify(image(png), { signal: aborted.signal, timeoutMs: 5_000 }))).code).toBe("aborted");

    const later = new AbortController();
    const pending = provider.classify(image(png), { signal: later.signal, timeoutMs: 5_000 });
    setTimeout(() => later.abort(), 1);
    expect((await rejection(pending)).code).toBe("aborted");

    expect((await rejection(provider.classify(image(png), { timeoutMs: 1 }))).code).toBe("timeout");

    // Queued requests that time out never reach the worker; the ones behind them still complete.
    // (An inference takes ~8 ms: 30 of them cannot all finish within 20 ms.)
    const burst = Array.from({ length: 30 }, () => provider.classify(image(png), { timeoutMs: 20 }).catch((e: unknown) => e));
    const outcomes = await Promise.all(burst);
    for (const o of outcomes) if (o instanceof ProviderError) expect(o.code).toBe("timeout");
    expect(outcomes.some((o) => o instanceof ProviderError)).toBe(true);

    const ok = await provider.classify(image(png), opts);
    expect(ok.categories.sexual!.score).toBeLessThan(0.15);
  });

  it("resolves many concurrent classifications with identical results for identical input", async () => {
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => provider.classify(image(i % 2 ? jpeg : png), opts)));
    expect(results).toHaveLength(10);
    for (let i = 2; i < results.length; i++) expect(results[i]).toEqual(results[i % 2]);
  });

  it("does not block the event loop while the model runs", async () => {
    let maxGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
    }, 2);
    const started = performance.now();
    // Pre-decoded 224×224 input: the time is almost all inference (~8 ms each, synchronous in the worker).
    const frame = await sharp(png).resize(224, 224, { fit: "fill" }).png().toBuffer();
    for (let i = 0; i < 6; i++) await provider.classify(image(frame), opts);
    const perImage = (performance.now() - started) / 6;
    clearInterval(timer);
    // On the main thread one forward pass would stall the loop for its whole duration.
    expect(maxGap).toBeLessThan(Math.max(50, perImage * 0.75));
  });

  it("recovers from a worker crash: the request in flight fails as unavailable, later ones work", async () => {
    const before = __nsfwTestHooks.state();
    const inFlight = provider.classify(image(png), opts);
    const deadline = Date.now() + 5_000;
    while (!__nsfwTestHooks.state().inFlight && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1));
    await __nsfwTestHooks.terminateWorker();
    const error = await rejection(inFlight);
    expect(error.code).toBe("network");
    const after = await provider.classify(image(png), opts);
    expect(after.categories.sexual!.score).toBeLessThan(0.15);
    const state = __nsfwTestHooks.state();
    expect(state.restarts).toBe(before.restarts + 1);
    expect(state.threadId).not.toBe(before.threadId);

    // An uncaught exception inside the idle worker: the next request gets a fresh worker.
    __nsfwTestHooks.crashWorker();
    await new Promise((r) => setTimeout(r, 200));
    expect(__nsfwTestHooks.state().running).toBe(false);
    const again = await provider.classify(image(jpeg, "image/jpeg"), opts);
    expect(again.categories.sexual!.score).toBeLessThan(0.15);
  });

  it("reports a missing worker script as unavailable (network), not a score", async () => {
    const broken = createNsfwProvider({ workerPath: path.join(os.tmpdir(), "no-such-nsfw-worker.mjs") });
    const error = await rejection(broken.classify(image(png), opts));
    expect(error.code).toBe("network");
    await expect(warmUpNsfw({ workerPath: path.join(os.tmpdir(), "no-such-nsfw-worker.mjs") })).rejects.toMatchObject({ code: "network" });
  });

  it("can be shut down and restarts lazily", async () => {
    await shutdownNsfw();
    expect(__nsfwTestHooks.state().running).toBe(false);
    const result = await provider.classify(image(png), opts);
    expect(result.categories.sexual!.score).toBeLessThan(0.15);
  });

  it("never keeps a process alive once it is idle", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "nsfw-unref-"));
    try {
      const script = path.join(dir, "idle.mts");
      const modulePath = path.resolve("lib/moderation/image/nsfw.ts");
      await writeFile(
        script,
        `import { createNsfwProvider } from ${JSON.stringify(modulePath)};\n` +
          `const data = new Uint8Array(${JSON.stringify([...png])});\n` +
          `const r = await createNsfwProvider().classify({ kind: "image", data, mimeType: "image/png" }, { timeoutMs: 20000 });\n` +
          `console.log(JSON.stringify(r.categories.sexual));\n`,
      );
      const child = spawn(process.execPath, ["--import", "tsx", script], { cwd: process.cwd(), stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((resolve) => {
        const kill = setTimeout(() => child.kill("SIGKILL"), 25_000);
        child.on("exit", (c) => {
          clearTimeout(kill);
          resolve(c);
        });
      });
      expect({ code, stderr: stderr.slice(0, 500) }).toEqual({ code: 0, stderr: "" });
      expect(JSON.parse(stdout.trim()).score).toBeLessThan(0.15);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
