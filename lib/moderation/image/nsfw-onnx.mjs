// nsfwjs' MobileNetV2 (a Keras layers model with uint8-quantized weights, as the nsfwjs package
// ships it) rewritten as an ONNX graph for onnxruntime-node, when the worker loads (~0.2 s): the same
// weights and arithmetic (outputs match tfjs within 2e-6 on the test photos), 8× faster than
// tfjs's wasm backend on this machine (8 ms against 70 ms per image, one thread).
//
// Plain ESM JavaScript, like nsfw-worker.mjs, which imports it. Layout: ONNX is channels-first, so
// the graph takes the 224×224×3 RGB bytes as they come (uint8, NHWC), scales them to 0..1 as
// nsfwjs does, transposes once, and kernels are transposed from Keras' HWIO to OIHW. Only the layer
// kinds this model uses are known; any other one is refused, so a changed model fails loudly.

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);
const MODEL_DIR = "dist/models/mobilenet_v2";
const { onnx } = require("onnx-proto");

const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT64 = onnx.TensorProto.DataType.INT64;
const UINT8 = onnx.TensorProto.DataType.UINT8;
const { INT, INTS, FLOAT: FLOAT_ATTR, STRING } = onnx.AttributeProto.AttributeType;

/** A package's folder and version. */
export function packageRoot(name) {
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

/** The nsfwjs MobileNetV2 model as the package ships it: the Keras model JSON and its weight bytes. */
export function bundledModel(nsfwRoot) {
  const dir = path.join(nsfwRoot, MODEL_DIR);
  const modelJson = require(path.join(dir, "model.min.js"));
  if (!modelJson || !modelJson.modelTopology || !Array.isArray(modelJson.weightsManifest)) {
    throw new Error(`unexpected model file in ${dir}`);
  }
  const parts = [];
  for (const group of modelJson.weightsManifest) {
    for (const shard of group.paths) {
      const base64 = require(path.join(dir, `${shard}.min.js`));
      if (typeof base64 !== "string") throw new Error(`unexpected weight shard ${shard} in ${dir}`);
      parts.push(Buffer.from(base64, "base64"));
    }
  }
  return { modelJson, data: Buffer.concat(parts) };
}

/** The model's weights by name, dequantized (tfjs: value = min + scale × q). */
export function readWeights(weightsManifest, data) {
  const weights = new Map();
  let offset = 0;
  for (const spec of weightsManifest.flatMap((group) => group.weights)) {
    const count = spec.shape.reduce((a, b) => a * b, 1);
    const values = new Float32Array(count);
    const q = spec.quantization;
    if (q?.dtype === "uint8") {
      for (let i = 0; i < count; i++) values[i] = q.min + q.scale * data[offset + i];
      offset += count;
    } else if (q?.dtype === "uint16") {
      for (let i = 0; i < count; i++) values[i] = q.min + q.scale * data.readUInt16LE(offset + 2 * i);
      offset += 2 * count;
    } else if (!q && spec.dtype === "float32") {
      for (let i = 0; i < count; i++) values[i] = data.readFloatLE(offset + 4 * i);
      offset += 4 * count;
    } else {
      throw new Error(`weight ${spec.name}: unsupported encoding`);
    }
    weights.set(spec.name, { shape: spec.shape, values });
  }
  if (offset !== data.length) throw new Error(`weights: ${data.length} bytes, the manifest describes ${offset}`);
  return weights;
}

/** Keras HWIO → ONNX OIHW. */
function convKernel({ shape: [h, w, inC, outC], values }) {
  const out = new Float32Array(values.length);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      for (let i = 0; i < inC; i++) for (let o = 0; o < outC; o++) out[((o * inC + i) * h + y) * w + x] = values[((y * w + x) * inC + i) * outC + o];
  return { dims: [outC, inC, h, w], values: out };
}

/** Keras depthwise [h, w, C, 1] → ONNX grouped conv [C, 1, h, w]. */
function depthwiseKernel({ shape: [h, w, channels, multiplier], values }) {
  if (multiplier !== 1) throw new Error("depthwise convolution with a depth multiplier is not supported");
  const out = new Float32Array(values.length);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) for (let c = 0; c < channels; c++) out[(c * h + y) * w + x] = values[(y * w + x) * channels + c];
  return { dims: [channels, 1, h, w], values: out };
}

/** The ONNX model bytes for a Keras layers model (modelTopology) and its weights. */
export function kerasToOnnx(modelTopology, weights, size) {
  const config = modelTopology.model_config.config;
  const initializers = [];
  const nodes = [];
  const floats = (name, dims, values) => {
    initializers.push({ name, dims, dataType: FLOAT, rawData: Buffer.from(Float32Array.from(values).buffer) });
    return name;
  };
  const int64s = (name, values) => {
    const raw = Buffer.alloc(8 * values.length);
    values.forEach((v, i) => raw.writeBigInt64LE(BigInt(v), 8 * i));
    initializers.push({ name, dims: [values.length], dataType: INT64, rawData: raw });
    return name;
  };
  const node = (opType, input, output, attribute = []) => nodes.push({ opType, input, output: [output], attribute, name: output });
  const ints = (name, values) => ({ name, type: INTS, ints: values });
  const weight = (layer, part) => {
    const found = weights.get(`${layer}/${part}`);
    if (!found) throw new Error(`no weight ${layer}/${part}`);
    return found;
  };

  node("Cast", ["input"], "input_float", [{ name: "to", type: INT, i: FLOAT }]);
  node("Mul", ["input_float", floats("one_255th", [], [1 / 255])], "input_scaled");
  node("Transpose", ["input_scaled"], "input_nchw", [ints("perm", [0, 3, 1, 2])]);
  const outputOf = new Map();
  for (const layer of config.layers) {
    const c = layer.config;
    const inputs = (layer.inbound_nodes[0] ?? []).map((inbound) => outputOf.get(inbound[0]));
    const out = layer.name;
    switch (layer.class_name) {
      case "InputLayer":
        outputOf.set(out, "input_nchw");
        continue;
      case "Dropout": // inference: identity
        outputOf.set(out, inputs[0]);
        continue;
      case "ZeroPadding2D": {
        const [[top, bottom], [left, right]] = c.padding;
        node("Pad", [inputs[0], int64s(`${out}/pads`, [0, 0, top, left, 0, 0, bottom, right])], out, [{ name: "mode", type: STRING, s: Buffer.from("constant") }]);
        break;
      }
      case "Conv2D":
      case "DepthwiseConv2D": {
        if (c.activation !== "linear") throw new Error(`${out}: activation ${c.activation} is not supported`);
        const kernel = layer.class_name === "Conv2D" ? convKernel(weight(out, "kernel")) : depthwiseKernel(weight(out, "depthwise_kernel"));
        const input = [inputs[0], floats(`${out}/W`, kernel.dims, kernel.values)];
        if (c.use_bias) input.push(floats(`${out}/B`, [kernel.dims[0]], weight(out, "bias").values));
        const attributes = [ints("kernel_shape", c.kernel_size), ints("strides", c.strides), ints("dilations", c.dilation_rate)];
        // TF's "same" puts the odd padding pixel at the end, as SAME_UPPER does.
        if (c.padding === "same") attributes.push({ name: "auto_pad", type: STRING, s: Buffer.from("SAME_UPPER") });
        if (layer.class_name === "DepthwiseConv2D") attributes.push({ name: "group", type: INT, i: kernel.dims[0] });
        node("Conv", input, out, attributes);
        break;
      }
      case "BatchNormalization": {
        const channels = weight(out, "moving_mean").values.length;
        const param = (part) => floats(`${out}/${part}`, [channels], weight(out, part).values);
        node("BatchNormalization", [inputs[0], param("gamma"), param("beta"), param("moving_mean"), param("moving_variance")], out, [
          { name: "epsilon", type: FLOAT_ATTR, f: c.epsilon },
        ]);
        break;
      }
      case "ReLU":
        if (c.max_value !== 6 || c.negative_slope !== 0 || c.threshold !== 0) throw new Error(`${out}: only ReLU6 is supported`);
        node("Clip", [inputs[0], floats(`${out}/min`, [], [0]), floats(`${out}/max`, [], [6])], out);
        break;
      case "Add":
        node("Add", inputs, out);
        break;
      case "AveragePooling2D":
        if (c.padding !== "valid") throw new Error(`${out}: only valid pooling is supported`);
        node("AveragePool", [inputs[0]], out, [ints("kernel_shape", c.pool_size), ints("strides", c.strides)]);
        break;
      case "Flatten": // after the 7×7 pooling the map is 1×1, so channels-first and channels-last flatten alike
        node("Flatten", [inputs[0]], out, [{ name: "axis", type: INT, i: 1 }]);
        break;
      case "Dense": {
        const kernel = weight(out, "kernel");
        const bias = weight(out, "bias");
        const linear = c.activation === "linear" ? out : `${out}/linear`;
        node("Gemm", [inputs[0], floats(`${out}/W`, kernel.shape, kernel.values), floats(`${out}/B`, bias.shape, bias.values)], linear);
        if (c.activation === "relu") node("Relu", [linear], out);
        else if (c.activation === "softmax") node("Softmax", [linear], out, [{ name: "axis", type: INT, i: 1 }]);
        else if (c.activation !== "linear") throw new Error(`${out}: activation ${c.activation} is not supported`);
        break;
      }
      default:
        throw new Error(`layer ${out}: ${layer.class_name} is not supported`);
    }
    outputOf.set(out, out);
  }
  const output = outputOf.get(config.output_layers[0][0]);
  const tensor = (name, elemType, dims) => ({ name, type: { tensorType: { elemType, shape: { dim: dims.map((dimValue) => ({ dimValue })) } } } });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: "sieve nsfw-onnx.mjs",
    opsetImport: [{ domain: "", version: 13 }],
    graph: { name: "nsfwjs", node: nodes, initializer: initializers, input: [tensor("input", UINT8, [1, size, size, 3])], output: [tensor(output, FLOAT, [1, 5])] },
  });
  return { bytes: onnx.ModelProto.encode(model).finish(), output };
}
