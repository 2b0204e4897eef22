import { execFile } from "node:child_process";
import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";

/**
 * Media fixtures generated at test time (nothing binary is committed).
 *
 * - Video/audio come from ffmpeg's lavfi sources (`testsrc2`, a luminance "time ramp", `sine`, silence),
 *   encoded with the encoders this Debian ffmpeg 5.1 ships (libx264 + aac in MP4).
 * - PDFs are written by hand (`makePdf`): PDF 1.4, Helvetica text (WinAnsiEncoding) and DCTDecode
 *   JPEG image XObjects, with a correct xref table so poppler reads them without reconstruction.
 *
 * Spoken fixtures are made with Debian's espeak-ng (tests/support/speech-fixtures.ts); the tests here
 * use tones/silence and a recorded pocketsphinx output sample.
 */

const execFileAsync = promisify(execFile);

async function ffmpeg(args: string[]): Promise<void> {
  await execFileAsync("ffmpeg", ["-hide_banner", "-nostdin", "-loglevel", "error", "-y", ...args], { timeout: 60_000 });
}

export interface MakeVideoOptions {
  seconds: number;
  width?: number;
  height?: number;
  withAudio?: boolean;
  /** Frames per second (default 25). */
  fps?: number;
  /**
   * `testsrc2` (default): ffmpeg's colourful moving test pattern.
   * `time-ramp`: a grey frame whose luminance is `min(255, 20 × t)`, so a decoded frame tells which
   * instant it came from (mean luma / 20 ≈ seconds) — used to check sampling times.
   */
  pattern?: "testsrc2" | "time-ramp";
  /** Audio tone frequency in Hz (default 440). */
  frequency?: number;
  /** Output file name inside `dir` (default `video-<w>x<h>-<s>s.mp4`). */
  name?: string;
  /** Add display-matrix rotation metadata (e.g. 90, as phones do). */
  rotate?: 90 | 180 | 270;
}

/** H.264 (libx264, yuv420p) + AAC in MP4, `+faststart`. Returns the file path. */
export async function makeVideo(dir: string, options: MakeVideoOptions): Promise<string> {
  const { seconds, width = 320, height = 240, withAudio = true, fps = 25, pattern = "testsrc2", frequency = 440 } = options;
  const file = path.join(dir, options.name ?? `video-${width}x${height}-${seconds}s${withAudio ? "" : "-mute"}.mp4`);
  const video =
    pattern === "time-ramp"
      ? `color=black:s=${width}x${height}:r=${fps}:d=${seconds},format=gray,geq=lum='min(255,T*20)'`
      : `testsrc2=s=${width}x${height}:r=${fps}:d=${seconds}`;
  const args = ["-f", "lavfi", "-i", video];
  if (withAudio) args.push("-f", "lavfi", "-i", `sine=frequency=${frequency}:sample_rate=44100:duration=${seconds}`);
  args.push("-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p");
  // Lossless for the ramp so luminance stays exact.
  if (pattern === "time-ramp") args.push("-qp", "0");
  if (withAudio) args.push("-c:a", "aac", "-b:a", "64k");
  args.push("-movflags", "+faststart", "-shortest");
  if (!options.rotate) {
    await ffmpeg([...args, file]);
    return file;
  }
  // ffmpeg 5.1 only writes the rotation display matrix when stream-copying, so remux in a second step.
  const plain = `${file}.plain.mp4`;
  await ffmpeg([...args, plain]);
  await ffmpeg(["-i", plain, "-map", "0", "-c", "copy", "-metadata:s:v:0", `rotate=${options.rotate}`, "-movflags", "+faststart", file]);
  await rm(plain, { force: true });
  return file;
}

export interface MakeWavOptions {
  seconds: number;
  /** Sine frequency in Hz; 0 means digital silence. */
  frequency?: number;
  sampleRate?: number;
  name?: string;
}

/** 16-bit PCM mono WAV: a sine tone (default 440 Hz) or silence (`frequency: 0`). Returns the file path. */
export async function makeWav(dir: string, options: MakeWavOptions): Promise<string> {
  const { seconds, frequency = 440, sampleRate = 44100 } = options;
  const file = path.join(dir, options.name ?? `tone-${frequency}hz-${seconds}s.wav`);
  const source =
    frequency > 0
      ? `sine=frequency=${frequency}:sample_rate=${sampleRate}:duration=${seconds}`
      : `anullsrc=channel_layout=mono:sample_rate=${sampleRate}`;
  await ffmpeg(["-f", "lavfi", "-i", source, "-t", String(seconds), "-ac", "1", "-c:a", "pcm_s16le", file]);
  return file;
}

/** A solid-colour (plus a diagonal stripe, so it is not trivially uniform) baseline JPEG. */
export async function makeJpeg(options: { width: number; height: number; color?: { r: number; g: number; b: number }; grayscale?: boolean }): Promise<Buffer> {
  const { width, height, color = { r: 200, g: 40, b: 40 } } = options;
  const channels = 3;
  const raw = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * channels;
      const stripe = Math.abs(x - y) < Math.max(2, width / 16);
      raw[o] = stripe ? 255 : color.r;
      raw[o + 1] = stripe ? 255 : color.g;
      raw[o + 2] = stripe ? 255 : color.b;
    }
  }
  let img = sharp(raw, { raw: { width, height, channels } });
  if (options.grayscale) img = img.grayscale().toColourspace("b-w");
  return img.jpeg({ quality: 90, mozjpeg: false }).toBuffer();
}

export interface PdfPageSpec {
  /**
   * Text drawn in 12 pt Helvetica from the top-left; `\n` starts a new line. Latin-1 characters are kept,
   * others become `?`. Lines are not wrapped: text running past the right edge (~75 characters) is
   * outside the page and pdftotext drops it.
   */
  text: string;
  /** Optional baseline JPEG drawn under the text (as a DCTDecode image XObject). */
  jpeg?: Buffer;
}

/** JPEG dimensions and component count, read from the SOFn marker. */
export function jpegInfo(jpeg: Buffer): { width: number; height: number; components: number } {
  if (jpeg[0] !== 0xff || jpeg[1] !== 0xd8) throw new Error("not a JPEG");
  let offset = 2;
  while (offset + 4 <= jpeg.length) {
    if (jpeg[offset] !== 0xff) throw new Error("corrupt JPEG marker stream");
    const marker = jpeg[offset + 1]!;
    if (marker === 0xff) {
      offset += 1;
      continue;
    }
    const length = jpeg.readUInt16BE(offset + 2);
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) {
      return { height: jpeg.readUInt16BE(offset + 5), width: jpeg.readUInt16BE(offset + 7), components: jpeg[offset + 9]! };
    }
    offset += 2 + length;
  }
  throw new Error("JPEG without SOF marker");
}

function pdfString(text: string): string {
  let out = "(";
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === "(" || ch === ")" || ch === "\\") out += `\\${ch}`;
    else if (code >= 0x20 && code < 0x7f) out += ch;
    // WinAnsiEncoding matches Latin-1 for 0xA0–0xFF.
    else if (code >= 0xa0 && code <= 0xff) out += `\\${code.toString(8).padStart(3, "0")}`;
    else out += "?";
  }
  return `${out})`;
}

/**
 * A valid, uncompressed PDF 1.4 (US Letter pages). Each page gets its text in Helvetica and, when given,
 * its JPEG as an image XObject (`/Im1`, DCTDecode, DeviceRGB or DeviceGray) scaled to at most 300 pt wide.
 * The xref table carries exact byte offsets, so `pdfinfo`, `pdftotext` and `pdfimages` read it as is.
 */
export function makePdf(spec: { pages: PdfPageSpec[] }): Buffer {
  if (spec.pages.length === 0) throw new Error("makePdf needs at least one page");
  const objects: Buffer[] = []; // objects[i] is object number i + 1
  const reserve = (): number => {
    objects.push(Buffer.alloc(0));
    return objects.length;
  };
  const set = (num: number, body: string | Buffer[]): void => {
    const parts = typeof body === "string" ? [Buffer.from(body, "latin1")] : body;
    objects[num - 1] = Buffer.concat([Buffer.from(`${num} 0 obj\n`, "latin1"), ...parts, Buffer.from("\nendobj\n", "latin1")]);
  };

  const catalog = reserve();
  const pagesNode = reserve();
  const font = reserve();
  set(catalog, `<< /Type /Catalog /Pages ${pagesNode} 0 R >>`);
  set(font, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");

  const pageNums: number[] = [];
  for (const page of spec.pages) {
    const pageNum = reserve();
    const contentNum = reserve();
    pageNums.push(pageNum);
    let content = "";
    let xobjects = "";
    if (page.jpeg) {
      const info = jpegInfo(page.jpeg);
      const colorSpace = info.components === 1 ? "/DeviceGray" : info.components === 4 ? "/DeviceCMYK" : "/DeviceRGB";
      const imageNum = reserve();
      set(imageNum, [
        Buffer.from(
          `<< /Type /XObject /Subtype /Image /Width ${info.width} /Height ${info.height} /ColorSpace ${colorSpace} ` +
            `/BitsPerComponent 8 /Filter /DCTDecode /Length ${page.jpeg.length} >>\nstream\n`,
          "latin1",
        ),
        page.jpeg,
        Buffer.from("\nendstream", "latin1"),
      ]);
      const drawWidth = Math.min(300, info.width);
      const drawHeight = (drawWidth * info.height) / info.width;
      content += `q ${drawWidth} 0 0 ${drawHeight.toFixed(2)} 72 ${(600 - drawHeight).toFixed(2)} cm /Im1 Do Q\n`;
      xobjects = ` /XObject << /Im1 ${imageNum} 0 R >>`;
    }
    const lines = page.text.split("\n");
    content += "BT /F1 12 Tf 14 TL 72 720 Td\n";
    lines.forEach((line, i) => {
      content += `${i === 0 ? "" : "T* "}${pdfString(line)} Tj\n`;
    });
    content += "ET";
    const contentBytes = Buffer.from(content, "latin1");
    set(contentNum, [Buffer.from(`<< /Length ${contentBytes.length} >>\nstream\n`, "latin1"), contentBytes, Buffer.from("\nendstream", "latin1")]);
    set(
      pageNum,
      `<< /Type /Page /Parent ${pagesNode} 0 R /MediaBox [0 0 612 792] ` +
        `/Resources << /Font << /F1 ${font} 0 R >>${xobjects} >> /Contents ${contentNum} 0 R >>`,
    );
  }
  set(pagesNode, `<< /Type /Pages /Kids [${pageNums.map((n) => `${n} 0 R`).join(" ")}] /Count ${pageNums.length} >>`);

  // Header with a binary comment line, as the spec recommends for files containing binary data.
  const chunks: Buffer[] = [Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  let offset = chunks[0]!.length;
  const offsets: number[] = [];
  for (const obj of objects) {
    offsets.push(offset);
    chunks.push(obj);
    offset += obj.length;
  }
  const xrefOffset = offset;
  // Each xref entry is exactly 20 bytes: "nnnnnnnnnn ggggg n\r\n".
  let xref = `xref\n0 ${objects.length + 1}\n0000000000 65535 f\r\n`;
  for (const o of offsets) xref += `${String(o).padStart(10, "0")} 00000 n\r\n`;
  xref += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R >>\nstartxref\n${xrefOffset}\n%%EOF\n`;
  chunks.push(Buffer.from(xref, "latin1"));
  return Buffer.concat(chunks);
}

/** `makePdf` written to `dir/name`. Returns the file path. */
export async function writePdf(dir: string, name: string, spec: { pages: PdfPageSpec[] }): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, makePdf(spec));
  return file;
}

/**
 * A word-processing document or e-book made by pandoc from Markdown (a heading, a paragraph and,
 * optionally, an embedded JPEG). Returns the file path.
 */
export async function makeDocument(dir: string, options: { format: "docx" | "odt" | "epub" | "rtf"; title: string; text: string; jpeg?: Buffer }): Promise<string> {
  const base = path.join(dir, `doc-${options.format}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`);
  const markdown = [`# ${options.title}`, "", options.text, ""];
  if (options.jpeg) {
    await writeFile(`${base}.jpg`, options.jpeg);
    markdown.push(`![picture](${path.basename(base)}.jpg)`, "");
  }
  await writeFile(`${base}.md`, markdown.join("\n"));
  const out = `${base}.${options.format}`;
  await promisify(execFile)("pandoc", [`${path.basename(base)}.md`, "--metadata", `title=${options.title}`, "-o", path.basename(out)], { cwd: dir });
  return out;
}
