// Worker thread for image labelling (see vision-worker-client.ts, which owns the protocol).
//
// Plain ESM JavaScript on purpose: it runs unchanged under tsx, vitest and next start, and it is
// never bundled (vision-worker-client.ts starts it from its path on disk).
//
// Runs TensorFlow.js on the wasm backend (as lib/moderation/image/nsfw-worker.mjs does) with two
// graph models vendored in ./models (models/README.md says where they come from):
//   - CenterNet (MobileNetV3, COCO, 80 classes): NHWC float32 RGB 0..255, no normalisation. The
//     graph was exported for 512×512; five constants in it hold sizes derived from that (the three
//     upsampling sizes of the head, the 128-cell grid width and 128² cells for the box gather), so
//     a model for another size (a multiple of 32) is the same weights with those constants
//     rewritten at load. Each rewritten constant is checked against its 512 value first, so a
//     different model file fails loudly instead of detecting garbage.
//   - human-models' "facemesh-detection-full", a BlazeFace-style detector converted from MediaPipe:
//     192×192 NHWC RGB scaled to -1..1. It has two heads, "face" (output Identity) and "person"
//     (Identity_1, also face-sized boxes); the face head is used (README.md, "Faces"). Per anchor
//     (48×48 grid, stride 4, one anchor a cell) 17 values: logit, box centre offset x/y and
//     width/height in input pixels, 6 keypoints.
// Models load once per worker, lazily, on the first request; one CenterNet per input size asked for.
//
// Protocol (one request at a time; the WorkerHost in vision-worker-client.ts serialises):
//   in:  { id, type: "load", objectSize }
//        { id, type: "detect", objectSize, objects: ArrayBuffer, faces: ArrayBuffer, floor }
//             objects: objectSize² × 3 RGB bytes; faces: 192² × 3 RGB bytes; both row-major
//        { type: "crash" }                                test hook: throws an uncaught error
//   out: { id, ok: true, info, loadMs }                   for "load"
//        { id, ok: true, info, objects: number[], faces: number[], ms } for "detect": objects are rows of
//             6 (x1, y1, x2, y2, score, class index) in input pixels; faces rows of 5 (x1, y1, x2,
//             y2, score) in face-input pixels; only rows with score ≥ floor, no suppression yet;
//             ms: { objects, faces } inference times
//        { id, ok: false, error: string }

import { readFileSync } from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { parentPort } from "node:worker_threads";

const require = createRequire(import.meta.url);
const MODELS = path.join(path.dirname(fileURLToPath(import.meta.url)), "models");
const FACE_SIZE = 192;
const FACE_STRIDE = 4;
const EXPORTED_SIZE = 512;

/** @type {Promise<{ tf: any, faces: any, objects: Map<number, Promise<any>>, info: object }> | null} */
let loading = null;

function readGraph(dir, name) {
  const json = JSON.parse(readFileSync(path.join(MODELS, dir, `${name}.json`), "utf8"));
  if (json.format !== "graph-model" || !Array.isArray(json.weightsManifest)) throw new Error(`unexpected model file ${dir}/${name}.json`);
  const weightSpecs = json.weightsManifest.flatMap((group) => group.weights);
  const data = Buffer.concat(json.weightsManifest.flatMap((group) => group.paths.map((p) => readFileSync(path.join(MODELS, dir, p)))));
  return { json, weightSpecs, data };
}

function bytesPerValue(spec) {
  const q = spec.quantization?.dtype;
  if (q === "uint8") return 1;
  if (q === "uint16" || q === "float16") return 2;
  if (spec.dtype === "float32" || spec.dtype === "int32") return 4;
  throw new Error(`unsupported weight ${spec.name} (${spec.dtype})`);
}

/** The CenterNet constants that depend on the input size, as functions of it. */
function centernetConstants(size) {
  const grid = size / 4;
  return {
    "tower_0/CenternetHead/c5_upsample/up_sampling2d/mul": [size / 16, size / 16],
    "tower_0/CenternetHead/c4_upsample/up_sampling2d_1/mul": [size / 8, size / 8],
    "tower_0/CenternetHead/c3_upsample/up_sampling2d_2/mul": [grid, grid],
    "tower_0/strided_slice_6": [grid],
    "tower_0/BatchGather/concat": [grid * grid, 4],
  };
}

/** A copy of the CenterNet graph and weights for `size`×`size` input (see the header). */
function centernetFor(graph, size) {
  if (!Number.isInteger(size) || size < 64 || size > 1024 || size % 32 !== 0) throw new Error(`object input size ${size} is not a multiple of 32 in 64..1024`);
  const json = structuredClone(graph.json);
  const data = Buffer.from(graph.data);
  const expected = centernetConstants(EXPORTED_SIZE);
  const wanted = centernetConstants(size);
  let offset = 0;
  let patched = 0;
  for (const spec of graph.weightSpecs) {
    const count = spec.shape.reduce((a, b) => a * b, 1);
    const target = wanted[spec.name];
    if (target) {
      if (spec.dtype !== "int32" || spec.quantization || count !== target.length) throw new Error(`unexpected constant ${spec.name} in the CenterNet model`);
      const values = new Int32Array(data.buffer, data.byteOffset + offset, count);
      if (values.join() !== expected[spec.name].join()) throw new Error(`constant ${spec.name} is ${values.join()}, not the 512-input value`);
      values.set(target);
      patched++;
    }
    offset += count * bytesPerValue(spec);
  }
  if (offset !== data.length || patched !== Object.keys(wanted).length) throw new Error("the CenterNet weights do not match the expected layout");
  const dims = [{ size: "1" }, { size: String(size) }, { size: String(size) }, { size: "3" }];
  for (const node of json.modelTopology.node) if (node.op === "Placeholder") node.attr.shape.shape.dim = dims;
  for (const input of Object.values(json.signature?.inputs ?? {})) input.tensorShape.dim = dims;
  return ioHandler(json, graph.weightSpecs, data);
}

function ioHandler(json, weightSpecs, data) {
  const weightData = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength);
  return { load: async () => ({ modelTopology: json.modelTopology, format: json.format, weightSpecs, weightData, signature: json.signature }) };
}

async function loadModels() {
  const tf = await import("@tensorflow/tfjs");
  const wasm = await import("@tensorflow/tfjs-backend-wasm");
  // A directory prefix (with trailing separator): emscripten reads `<prefix>tfjs-backend-wasm*.wasm` with fs in Node.
  wasm.setWasmPaths(path.dirname(require.resolve("@tensorflow/tfjs-backend-wasm")) + path.sep);
  if (!(await tf.setBackend("wasm"))) throw new Error("the tfjs wasm backend failed to initialise");
  await tf.ready();
  const face = readGraph("facemesh-detection-full", "facemesh-detection-full");
  const faces = await tf.loadGraphModel(ioHandler(face.json, face.weightSpecs, face.data));
  const centernet = readGraph("centernet", "centernet");
  const info = { tfjsVersion: String(tf.version_core ?? tf.version?.["tfjs-core"] ?? "unknown"), backend: tf.getBackend() };
  return { tf, faces, centernet, objects: new Map(), info };
}

function ensureLoaded() {
  if (!loading) {
    loading = loadModels();
    loading.catch(() => {
      loading = null; // retry on the next request
    });
  }
  return loading;
}

/** The CenterNet model for this input size, loaded (and warmed up once) on first use. */
async function objectModel(state, size) {
  let model = state.objects.get(size);
  if (!model) {
    model = (async () => {
      const loaded = await state.tf.loadGraphModel(centernetFor(state.centernet, size));
      state.tf.tidy(() => loaded.execute(state.tf.zeros([1, size, size, 3]), ["tower_0/detections"])).dispose();
      return loaded;
    })();
    state.objects.set(size, model);
    model.catch(() => state.objects.delete(size));
  }
  return model;
}

async function load(objectSize) {
  const started = performance.now();
  const state = await ensureLoaded();
  await objectModel(state, objectSize);
  return { info: state.info, loadMs: performance.now() - started };
}

function pixels(buffer, size, what) {
  const bytes = new Uint8Array(buffer ?? new ArrayBuffer(0));
  if (bytes.length !== size * size * 3) throw new Error(`${what} input has ${bytes.length} bytes, expected ${size * size * 3}`);
  return bytes;
}

async function detectObjects(state, size, buffer, minScore) {
  const { tf } = state;
  const model = await objectModel(state, size);
  const input = pixels(buffer, size, "object");
  const output = tf.tidy(() => model.execute(tf.tensor4d(Float32Array.from(input), [1, size, size, 3]), ["tower_0/detections"]));
  let rows;
  try {
    rows = await output.data();
  } finally {
    output.dispose();
  }
  const kept = [];
  for (let i = 0; i + 6 <= rows.length; i += 6) if (rows[i + 4] >= minScore && Number.isFinite(rows[i + 5])) kept.push(...rows.subarray(i, i + 6));
  return kept;
}

/** Anchor centres of the 48×48 grid, one anchor per cell (as @vladmandic/human generates them for 192² input). */
function faceAnchor(index) {
  const cells = FACE_SIZE / FACE_STRIDE;
  return [FACE_STRIDE * ((index % cells) + 0.5), FACE_STRIDE * (Math.floor(index / cells) + 0.5)];
}

async function detectFaces(state, buffer, minScore) {
  const { tf } = state;
  const input = pixels(buffer, FACE_SIZE, "face");
  const output = tf.tidy(() => state.faces.execute(tf.tensor4d(Float32Array.from(input, (v) => v / 127.5 - 1), [1, FACE_SIZE, FACE_SIZE, 3]), "Identity"));
  let raw;
  try {
    raw = await output.data();
  } finally {
    output.dispose();
  }
  const kept = [];
  for (let i = 0; (i + 1) * 17 <= raw.length; i++) {
    const r = i * 17;
    const score = 1 / (1 + Math.exp(-raw[r]));
    if (!(score >= minScore)) continue;
    const [ax, ay] = faceAnchor(i);
    const cx = ax + raw[r + 1];
    const cy = ay + raw[r + 2];
    kept.push(cx - raw[r + 3] / 2, cy - raw[r + 4] / 2, cx + raw[r + 3] / 2, cy + raw[r + 4] / 2, score);
  }
  return kept;
}

async function detect(message) {
  const state = await ensureLoaded();
  const floor = Number(message.floor ?? 0.2);
  const started = performance.now();
  const objects = await detectObjects(state, message.objectSize, message.objects, floor);
  const objectsDone = performance.now();
  const faces = await detectFaces(state, message.faces, floor);
  return { info: state.info, objects, faces, ms: { objects: objectsDone - started, faces: performance.now() - objectsDone } };
}

parentPort.on("message", async (message) => {
  if (message?.type === "crash") {
    setImmediate(() => {
      throw new Error("vision worker crash requested (test hook)");
    });
    return;
  }
  const id = message?.id;
  try {
    if (message?.type === "load") parentPort.postMessage({ id, ok: true, ...(await load(message.objectSize)) });
    else if (message?.type === "detect") parentPort.postMessage({ id, ok: true, ...(await detect(message)) });
    else parentPort.postMessage({ id, ok: false, error: `unknown request type ${String(message?.type)}` });
  } catch (error) {
    parentPort.postMessage({ id, ok: false, error: error instanceof Error ? error.message : String(error) });
  }
});
