/** Types of nsfw-onnx.mjs (plain JavaScript: the worker process runs it without tsx). */
export interface KerasModelJson {
  modelTopology: { model_config: { config: unknown } } & Record<string, unknown>;
  weightsManifest: { paths: string[]; weights: { name: string; shape: number[]; dtype: string; quantization?: unknown }[] }[];
}
export function packageRoot(name: string): { dir: string; version: string };
export function bundledModel(nsfwRoot: string): { modelJson: KerasModelJson; data: Buffer };
export type Weights = Map<string, { shape: number[]; values: Float32Array }>;
export function readWeights(weightsManifest: KerasModelJson["weightsManifest"], data: Buffer): Weights;
export function kerasToOnnx(modelTopology: KerasModelJson["modelTopology"], weights: Weights, size: number): { bytes: Uint8Array; output: string };
