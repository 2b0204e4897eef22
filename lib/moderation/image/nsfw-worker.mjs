// Worker thread for the nsfwjs image classifier (see nsfw-worker-client.ts, which owns the protocol).
//
// Plain ESM JavaScript on purpose: it runs unchanged under tsx, vitest and next start, and it is
// never bundled (nsfw-worker-client.ts starts it from its path on disk).
//
// Runs TensorFlow.js on the wasm backend (single-threaded SIMD build; the .wasm binaries are read
// from the package's dist folder with fs) and nsfwjs' MobileNetV2 model, whose topology and
// weights ship inside the nsfwjs package as CommonJS modules (model.min.js, a base64 weight shard).
// They are read from disk here: nothing is fetched (Node fetch cannot read file:// URLs anyway).
// The model is loaded once, lazily, on the first request.
//
// Protocol (one request at a time; the WorkerHost in nsfw-worker-client.ts serialises):
//   in:  { id, type: "load" }
//        { id, type: "classify", frames: ArrayBuffer[] }  each 224×224×3 RGB bytes, row-major
//        { type: "crash" }                                test hook: throws an uncaught error
//   out: { id, ok: true, info, loadMs }                   for "load"
//        { id, ok: true, info, frames: Record<class, number>[] } for "classify"
//        { id, ok: false, error: string }

import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parentPort } from "node:worker_threads";

const require = createRequire(import.meta.url);
const SIZE = 224;
/** Output order of the nsfwjs models (nsfwjs/dist/esm/nsfw_classes.js). */
const CLASS_NAMES = ["Drawing", "Hentai", "Neutral", "Porn", "Sexy"];
const MODEL_DIR = "dist/models/mobilenet_v2";

/** @type {Promise<{ tf: any, model: any, info: object, loadMs: number }> | null} */
let loading = null;

function packageRoot(name) {
  // nsfwjs' `exports` hide package.json and the model files; resolve the entry and walk up.
  let dir = path.dirname(require.resolve(name));
  for (;;) {
    const file = path.join(dir, "package.json");
    try {
      const pkg = JSON.parse(readFileSync(file, "utf8"));
      if (pkg.name === name) return { dir, version: String(pkg.version) };
    } catch {
      // not there yet
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the package root of ${name}`);
    dir = parent;
  }
}

/** The nsfwjs MobileNetV2 model as a tfjs IOHandler reading the bundled files. */
function bundledModelHandler(nsfwRoot) {
  const dir = path.join(nsfwRoot, MODEL_DIR);
  const modelJson = require(path.join(dir, "model.min.js"));
  if (!modelJson || !modelJson.modelTopology || !Array.isArray(modelJson.weightsManifest)) {
    throw new Error(`unexpected model file in ${dir}`);
  }
  const weightSpecs = [];
  const parts = [];
  for (const group of modelJson.weightsManifest) {
    for (const shard of group.paths) {
      const base64 = require(path.join(dir, `${shard}.min.js`));
      if (typeof base64 !== "string") throw new Error(`unexpected weight shard ${shard} in ${dir}`);
      parts.push(Buffer.from(base64, "base64"));
    }
    weightSpecs.push(...group.weights);
  }
  const all = Buffer.concat(parts);
  const weightData = all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength);
  return {
    load: async () => ({ modelTopology: modelJson.modelTopology, format: "layers-model", weightSpecs, weightData }),
  };
}

async function loadModel() {
  const started = performance.now();
  const tf = await import("@tensorflow/tfjs");
  const wasm = await import("@tensorflow/tfjs-backend-wasm");
  // A directory prefix (with trailing separator): emscripten reads `<prefix>tfjs-backend-wasm*.wasm`
  // with fs in Node.
  wasm.setWasmPaths(path.dirname(require.resolve("@tensorflow/tfjs-backend-wasm")) + path.sep);
  if (!(await tf.setBackend("wasm"))) throw new Error("the tfjs wasm backend failed to initialise");
  await tf.ready();
  const nsfw = packageRoot("nsfwjs");
  const { load } = await import("nsfwjs/core");
  // load() with an IOHandler (not a model name): no registry, no network, no console banner;
  // it also runs one warm-up prediction.
  const model = await load(bundledModelHandler(nsfw.dir), { size: SIZE });
  const info = {
    nsfwjsVersion: nsfw.version,
    model: "MobileNetV2",
    size: SIZE,
    tfjsVersion: String(tf.version_core ?? tf.version?.["tfjs-core"] ?? "unknown"),
    backend: tf.getBackend(),
  };
  return { tf, model, info, loadMs: performance.now() - started };
}

function ensureModel() {
  if (!loading) {
    loading = loadModel();
    loading.catch(() => {
      loading = null; // retry on the next request
    });
  }
  return loading;
}

async function classify(frames) {
  const { tf, model, info } = await ensureModel();
  const results = [];
  for (const frame of frames) {
    const pixels = new Uint8Array(frame);
    if (pixels.length !== SIZE * SIZE * 3) throw new Error(`frame has ${pixels.length} bytes, expected ${SIZE * SIZE * 3}`);
    // infer() normalises to 0..1 and runs the model; tidy disposes the input tensor.
    const logits = tf.tidy(() => model.infer(tf.tensor3d(Int32Array.from(pixels), [SIZE, SIZE, 3], "int32")));
    let values;
    try {
      values = await logits.data();
    } finally {
      logits.dispose();
    }
    if (values.length !== CLASS_NAMES.length) throw new Error(`model returned ${values.length} values`);
    results.push(Object.fromEntries(CLASS_NAMES.map((name, i) => [name, values[i]])));
  }
  return { info, frames: results };
}

parentPort.on("message", async (message) => {
  if (message?.type === "crash") {
    setImmediate(() => {
      throw new Error("nsfw worker crash requested (test hook)");
    });
    return;
  }
  const id = message?.id;
  try {
    if (message?.type === "load") {
      const { info, loadMs } = await ensureModel();
      parentPort.postMessage({ id, ok: true, info, loadMs });
    } else if (message?.type === "classify") {
      parentPort.postMessage({ id, ok: true, ...(await classify(message.frames ?? [])) });
    } else {
      parentPort.postMessage({ id, ok: false, error: `unknown request type ${String(message?.type)}` });
    }
  } catch (error) {
    parentPort.postMessage({ id, ok: false, error: error instanceof Error ? error.message : String(error) });
  }
});
