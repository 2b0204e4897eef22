import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import sharp, { type Color, type Sharp } from "sharp";

/**
 * HEIC fixtures made at test time by `heif-enc` (Debian's libheif-examples, installed by .ci/run):
 * sharp cannot encode HEVC, so it draws a PNG and heif-enc turns it into a HEIC.
 */

/** Whether heif-enc is installed. */
export function hasHeifEnc(): boolean {
  try {
    execFileSync("heif-enc", ["--help"], { stdio: "ignore" });
    return true;
  } catch (error) {
    // heif-enc --help exits 1 on some versions: only a missing binary counts.
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

export interface MakeHeicOptions {
  /** Keep an alpha channel: the red half is then half-transparent (ignored with `background`). */
  alpha?: boolean;
  /** One opaque colour for the whole image instead of the red and blue halves. */
  background?: Color;
}

/** A HEIC of a width×height image: red left half, blue right half, or all `background`. */
export async function makeHeic(width: number, height: number, options: MakeHeicOptions = {}): Promise<Buffer> {
  const alpha = Boolean(options.alpha) && options.background === undefined;
  let image: Sharp;
  if (options.background !== undefined) {
    image = sharp({ create: { width, height, channels: 3, background: options.background } });
  } else {
    const half = Math.floor(width / 2);
    image = sharp({ create: { width, height, channels: 4, background: { r: 220, g: 20, b: 20, alpha: alpha ? 0.5 : 1 } } }).composite([
      { input: { create: { width: width - half, height, channels: 4, background: { r: 20, g: 20, b: 220, alpha: 1 } } }, left: half, top: 0 },
    ]);
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), "heic-fixture-"));
  try {
    const input = path.join(dir, "in.png");
    const output = path.join(dir, "out.heic");
    await image.png().toFile(input);
    await promisify(execFile)("heif-enc", ["-q", "90", ...(alpha ? [] : ["--no-alpha"]), "-o", output, input], { timeout: 60_000 });
    return await readFile(output);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
