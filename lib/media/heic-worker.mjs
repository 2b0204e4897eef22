// Worker thread decoding HEIC/HEIF with heic-decode (libheif compiled to wasm); see heic.ts, which
// owns the protocol. libheif runs synchronously and would block the server's event loop for about a
// second per 12 MP photo, hence the thread.
//
// Plain ESM JavaScript on purpose: it runs unchanged under tsx, vitest and next start, and it is
// never bundled (heic.ts starts it from its path on disk).
//
// Protocol (one request at a time; the WorkerHost in heic.ts serialises):
//   in:  { id, input: ArrayBuffer, maxPixels: number }
//   out: { id, ok: true, width, height, channels: 3 | 4, data: ArrayBuffer }  raw pixels, row-major
//        { id, ok: false, error: string, code: "invalid" | "too-large" | "failed" }

import { createRequire } from "node:module";
import { parentPort } from "node:worker_threads";

const require = createRequire(import.meta.url);
/** Loaded on the first request: compiling the wasm takes ~50 ms. */
let decoder = null;

class DecodeFailure extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** RGBA → RGB when every pixel is opaque: a quarter less memory, and no alpha for JPEG/WebP to carry. */
function dropOpaqueAlpha(rgba, pixels) {
  for (let i = 3; i < rgba.length; i += 4) if (rgba[i] !== 255) return null;
  const rgb = new Uint8Array(pixels * 3);
  for (let p = 0, s = 0; p < rgb.length; p += 3, s += 4) {
    rgb[p] = rgba[s];
    rgb[p + 1] = rgba[s + 1];
    rgb[p + 2] = rgba[s + 2];
  }
  return rgb;
}

async function decode(input, maxPixels) {
  decoder ??= require("heic-decode");
  let images;
  try {
    images = await decoder.all({ buffer: new Uint8Array(input) });
  } catch (error) {
    throw new DecodeFailure("invalid", `not a decodable HEIC/HEIF image: ${error?.message ?? error}`);
  }
  try {
    const primary = images[0];
    if (!primary) throw new DecodeFailure("invalid", "the HEIF file holds no image");
    // Checked before any pixel is decoded (the decompression-bomb guard).
    if (primary.width * primary.height > maxPixels) {
      throw new DecodeFailure("too-large", `the image has ${primary.width}×${primary.height} pixels, more than the ${maxPixels} allowed`);
    }
    const { width, height, data } = await primary.decode();
    const rgb = dropOpaqueAlpha(data, width * height);
    // libheif applies the file's rotation and mirroring (irot/imir) while decoding: the pixels are upright.
    return rgb ? { width, height, channels: 3, pixels: rgb } : { width, height, channels: 4, pixels: new Uint8Array(data.buffer, data.byteOffset, data.length) };
  } finally {
    images.dispose();
  }
}

parentPort.on("message", async (message) => {
  const { id, input, maxPixels } = message;
  try {
    const { width, height, channels, pixels } = await decode(input, maxPixels);
    const data = pixels.byteOffset === 0 && pixels.byteLength === pixels.buffer.byteLength ? pixels.buffer : pixels.slice().buffer;
    parentPort.postMessage({ id, ok: true, width, height, channels, data }, [data]);
  } catch (error) {
    const code = error instanceof DecodeFailure ? error.code : "failed";
    parentPort.postMessage({ id, ok: false, code, error: error?.message ?? String(error) });
  }
});
