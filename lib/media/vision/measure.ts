/**
 * Measures the labeller per CenterNet input size: labels found and time per image (README.md,
 * "Input size"). Run on a quiet machine:
 *
 *   flock /tmp/bench.lock npx tsx lib/media/vision/measure.ts [--sizes 512,384,320] [--runs 3] image…
 *
 * "model" is the object model's inference in the worker (median over the runs); "total" is a whole
 * labelImage() call (decode, resizes, both models, post-processing).
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { labelImage, OBJECT_INPUT_SIZE, shutdownVision, warmUpVision } from ".";
import { visionWorkerHost } from "./vision-worker-client";

function argument(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 ? (process.argv.splice(at, 2)[1] ?? fallback) : fallback;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

async function letterbox(image: Buffer, size: number): Promise<ArrayBuffer> {
  const data = await sharp(image).rotate().toColourspace("srgb").flatten({ background: "#ffffff" }).resize(size, size, { fit: "contain", background: "#000000" }).removeAlpha().raw().toBuffer();
  return Uint8Array.from(data).buffer;
}

async function main(): Promise<void> {
  const sizes = argument("--sizes", `512,448,${OBJECT_INPUT_SIZE},320,256`).split(",").map(Number);
  const runs = Number(argument("--runs", "3"));
  const files = process.argv.slice(2);
  if (files.length === 0) throw new Error("usage: measure.ts [--sizes 512,384] [--runs 3] image…");
  await warmUpVision();
  const host = visionWorkerHost();
  for (const size of sizes) {
    const modelMs: number[] = [];
    const totalMs: number[] = [];
    for (const file of files) {
      const bytes = readFileSync(file);
      const perRun: number[] = [];
      const perTotal: number[] = [];
      let labels = "";
      for (let run = 0; run < runs + 1; run++) {
        const faces = await letterbox(bytes, 192);
        const reply = await host.request({ type: "detect", objectSize: size, objects: await letterbox(bytes, size), faces, floor: 0.1 });
        const started = performance.now();
        const result = await labelImage(bytes, { objectInputSize: size });
        if (run === 0) continue; // the first call at a size loads its model
        perRun.push(reply.ms?.objects ?? NaN);
        perTotal.push(performance.now() - started);
        labels = `${result.objects.map((o) => `${o.label}×${o.count} ${o.confidence.toFixed(2)}`).join(", ")} | faces ${result.faces}`;
      }
      modelMs.push(median(perRun));
      totalMs.push(median(perTotal));
      console.log(`${size}\t${path.basename(file)}\tmodel ${median(perRun).toFixed(0)} ms\ttotal ${median(perTotal).toFixed(0)} ms\t${labels}`);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(`${size}\tmean\tmodel ${mean(modelMs).toFixed(0)} ms\ttotal ${mean(totalMs).toFixed(0)} ms\n`);
  }
  await shutdownVision();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
