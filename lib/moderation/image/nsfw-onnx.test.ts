import { createRequire } from "node:module";
import path from "node:path";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { bundledModel, kerasToOnnx, packageRoot, readWeights, type KerasModelJson } from "./nsfw-onnx.mjs";

// The converted model must be nsfwjs' model: the same probabilities as nsfwjs itself computes on
// TensorFlow.js for the same input, so the thresholds tuned on nsfwjs' scores still hold.

const require = createRequire(import.meta.url);
const SIZE = 224;
const FIXTURES = ["cat.jpg", "two-people.jpg", "astronaut.jpg", "coffee.jpg"].map((f) => path.resolve("tests/fixtures/vision", f));

type Infer = (pixels: Uint8Array) => Promise<number[]>;
let onnxRun: Infer;
let tfjsRun: Infer;
let model: { modelJson: KerasModelJson; data: Buffer };

beforeAll(async () => {
  model = bundledModel(packageRoot("nsfwjs").dir);
  const { bytes, output } = kerasToOnnx(model.modelJson.modelTopology, readWeights(model.modelJson.weightsManifest, model.data), SIZE);
  const ort = require("onnxruntime-node") as typeof import("onnxruntime-node");
  const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1 });
  onnxRun = async (pixels) => [...((await session.run({ input: new ort.Tensor("uint8", pixels, [1, SIZE, SIZE, 3]) }))[output]!.data as Float32Array)];

  const tf = await import("@tensorflow/tfjs");
  const wasm = await import("@tensorflow/tfjs-backend-wasm");
  wasm.setWasmPaths(path.dirname(require.resolve("@tensorflow/tfjs-backend-wasm")) + path.sep);
  await tf.setBackend("wasm");
  const { load } = await import("nsfwjs/core");
  const { modelJson, data } = model;
  const weightData = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
  const handler = { load: async () => ({ modelTopology: modelJson.modelTopology, format: "layers-model", weightSpecs: modelJson.weightsManifest.flatMap((g) => g.weights), weightData }) };
  const nsfwjs = await load(handler as never, { size: SIZE });
  tfjsRun = async (pixels) => {
    const logits = tf.tidy(() => nsfwjs.infer(tf.tensor3d(Int32Array.from(pixels), [SIZE, SIZE, 3], "int32")));
    const values = [...(await logits.data())];
    logits.dispose();
    return values;
  };
}, 60_000);

describe("nsfwjs' MobileNetV2 converted to ONNX", () => {
  it("gives nsfwjs' own probabilities on TensorFlow.js for the same pixels", async () => {
    let largest = 0;
    for (const file of FIXTURES) {
      const pixels = new Uint8Array(await sharp(file).resize(SIZE, SIZE, { fit: "fill" }).removeAlpha().raw().toBuffer());
      const [onnx, tfjs] = [await onnxRun(pixels), await tfjsRun(pixels)];
      expect(onnx).toHaveLength(5);
      expect(onnx.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 4);
      for (let i = 0; i < 5; i++) largest = Math.max(largest, Math.abs(onnx[i]! - tfjs[i]!));
    }
    expect(largest).toBeLessThan(1e-4);
  });

  it("refuses a layer kind it does not know, instead of building a different model", () => {
    const topology = structuredClone(model.modelJson.modelTopology) as { model_config: { config: { layers: { class_name: string }[] } } };
    topology.model_config.config.layers.splice(2, 0, { ...topology.model_config.config.layers[2]!, class_name: "LSTM" });
    expect(() => kerasToOnnx(topology as never, readWeights(model.modelJson.weightsManifest, model.data), SIZE)).toThrow(/LSTM is not supported/);
  });

  it("refuses weights that do not match their manifest", () => {
    expect(() => readWeights(model.modelJson.weightsManifest, model.data.subarray(0, model.data.length - 1))).toThrow();
  });
});
