// Worker thread for the nsfwjs image classifier (see nsfw-worker-client.ts, which owns the protocol).
//
// Plain ESM JavaScript on purpose: it runs unchanged under tsx, vitest and next start, and it is
// never bundled (nsfw-worker-client.ts starts it from its path on disk).
//
// Runs nsfwjs' MobileNetV2 model, whose topology and weights ship inside the nsfwjs package as
// CommonJS modules (model.min.js, a base64 weight shard), on onnxruntime-node's CPU runtime (its
// binaries ship in the npm package): nsfw-onnx.mjs rewrites the Keras model as an ONNX graph when
// the model loads. The same weights and arithmetic as nsfwjs on TensorFlow.js (outputs within 2e-6),
// 8× faster than tfjs's wasm backend (8 ms against 70 ms per image on one thread, 5.6 ms on two:
// SIEVE_NSFW_THREADS, set by nsfw-worker-client.ts). Nothing is fetched. The model is loaded once,
// lazily, on the first request.
//
// It runs as a child process (forked with an IPC channel), not a worker thread: onnxruntime aborts
// the whole process when its thread is terminated mid-run, and a hung or abandoned worker is
// terminated. It works on a worker thread (parentPort) too.
//
// Protocol (one request at a time; the WorkerHost in nsfw-worker-client.ts serialises):
//   in:  { id, type: "load" }
//        { id, type: "classify", frames: ArrayBuffer[] }  each 224×224×3 RGB bytes, row-major
//        { type: "crash" }                                test hook: throws an uncaught error
//   out: { id, ok: true, info, loadMs }                   for "load"
//        { id, ok: true, info, frames: Record<class, number>[] } for "classify"
//        { id, ok: false, error: string }

import { createRequire } from "node:module";
import { parentPort as threadPort } from "node:worker_threads";
import { bundledModel, kerasToOnnx, packageRoot, readWeights } from "./nsfw-onnx.mjs";

const require = createRequire(import.meta.url);
const SIZE = 224;
/** Output order of the nsfwjs models (nsfwjs/dist/esm/nsfw_classes.js). */
const CLASS_NAMES = ["Drawing", "Hentai", "Neutral", "Porn", "Sexy"];

/** @type {Promise<{ ort: any, session: any, output: string, info: object, loadMs: number }> | null} */
let loading = null;

async function loadModel() {
  const started = performance.now();
  const ort = require("onnxruntime-node");
  const nsfw = packageRoot("nsfwjs");
  const { modelJson, data } = bundledModel(nsfw.dir);
  const { bytes, output } = kerasToOnnx(modelJson.modelTopology, readWeights(modelJson.weightsManifest, data), SIZE);
  const threads = Math.max(1, Number(process.env.SIEVE_NSFW_THREADS) || 1);
  const session = await ort.InferenceSession.create(bytes, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
    // Idle threads sleep instead of spinning: two threads cost ~20 % more CPU than one, not ~85 %.
    extra: { session: { intra_op: { allow_spinning: "0" } } },
  });
  const info = {
    nsfwjsVersion: nsfw.version,
    model: "MobileNetV2",
    size: SIZE,
    runtime: `onnxruntime-node ${packageRoot("onnxruntime-node").version}`,
    backend: "cpu",
    threads,
  };
  // One warm-up run: the first one allocates the session's buffers.
  await session.run({ input: new ort.Tensor("uint8", new Uint8Array(SIZE * SIZE * 3), [1, SIZE, SIZE, 3]) });
  return { ort, session, output, info, loadMs: performance.now() - started };
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
  const { ort, session, output, info } = await ensureModel();
  const results = [];
  for (const frame of frames) {
    const pixels = new Uint8Array(frame);
    if (pixels.length !== SIZE * SIZE * 3) throw new Error(`frame has ${pixels.length} bytes, expected ${SIZE * SIZE * 3}`);
    // The graph scales the bytes to 0..1 as nsfwjs does, and ends in the model's softmax.
    const answer = await session.run({ input: new ort.Tensor("uint8", pixels, [1, SIZE, SIZE, 3]) });
    const values = answer[output].data;
    if (values.length !== CLASS_NAMES.length) throw new Error(`model returned ${values.length} values`);
    results.push(Object.fromEntries(CLASS_NAMES.map((name, i) => [name, values[i]])));
  }
  return { info, frames: results };
}

/** The channel to the parent: a worker thread's port, or a forked process's IPC channel. */
function connectToParent() {
  if (threadPort) return threadPort;
  if (!process.send) throw new Error("nsfw-worker.mjs must run as a worker thread or a forked child process");
  // The parent is gone (it exited or was killed): nothing can reach this process any more.
  process.on("disconnect", () => process.exit(0));
  return { on: (event, listener) => process.on(event, listener), postMessage: (message) => process.send(message) };
}

const parentPort = connectToParent();

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
