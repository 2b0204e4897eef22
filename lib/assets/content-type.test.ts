import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { assetTypeForMime, describeImage, detectContent, normaliseMime } from "./content-type";

const image = (format: "png" | "jpeg" | "webp" | "gif", channels: 3 | 4 = 3) =>
  sharp({ create: { width: 5, height: 3, channels, background: { r: 200, g: 10, b: 10, alpha: 0.5 } } })
    .toFormat(format)
    .toBuffer();

async function animatedGif(): Promise<Buffer> {
  const frames = await Promise.all(
    ["red", "green", "blue"].map((c) => sharp({ create: { width: 4, height: 2, channels: 3, background: c } }).png().toBuffer()),
  );
  return sharp(frames, { join: { animated: true } }).gif().toBuffer();
}

/** A 44-byte PCM WAV header plus four silent samples. */
function wav(): Buffer {
  const b = Buffer.alloc(52);
  b.write("RIFF", 0);
  b.writeUInt32LE(44, 4);
  b.write("WAVEfmt ", 8);
  b.writeUInt32LE(16, 16); // fmt chunk size
  b.writeUInt16LE(1, 20); // PCM
  b.writeUInt16LE(1, 22); // mono
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(16000, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write("data", 36);
  b.writeUInt32LE(8, 40);
  return b;
}

/** One stored zip entry (local header only), as in the head of any zip-based document. */
function zip(name: string, data: string): Buffer {
  const n = Buffer.from(name);
  const d = Buffer.from(data);
  const h = Buffer.alloc(30);
  h.writeUInt32LE(0x04034b50, 0);
  h.writeUInt16LE(20, 4);
  h.writeUInt32LE(d.length, 18);
  h.writeUInt32LE(d.length, 22);
  h.writeUInt16LE(n.length, 26);
  return Buffer.concat([h, n, d]);
}

const cfb = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(600)]);
const pdf = Buffer.from("%PDF-1.4\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n2 0 obj <</Type /Pages /Kids [] /Count 0>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF\n");
const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="20"><rect width="10" height="20"/></svg>';
const html = "<!DOCTYPE html>\n<html><head><title>x</title></head><body>hi</body></html>";
const utf8 = (s: string) => Buffer.from(s, "utf8");
const NOISE = randomBytes(5000);
NOISE[0] = 0x00; // never valid text, never a known signature

describe("detectContent: binary formats (the bytes win)", () => {
  it.each([
    ["png", "image/png", "png"],
    ["jpeg", "image/jpeg", "jpg"],
    ["webp", "image/webp", "webp"],
    ["gif", "image/gif", "gif"],
  ] as const)("detects %s", async (format, mime, extension) => {
    expect(await detectContent(await image(format), null)).toEqual({ mime, extension, type: "image" });
  });

  it("detects a hand-built WAV header as audio", async () => {
    expect(await detectContent(wav(), "application/octet-stream")).toEqual({ mime: "audio/wav", extension: "wav", type: "audio" });
  });

  it("detects a minimal PDF as a multimedia document", async () => {
    expect(await detectContent(pdf, null, "report.txt")).toEqual({ mime: "application/pdf", extension: "pdf", type: "multimedia-document" });
  });

  it("prefers the detected type over a wrong declaration (PNG declared image/jpeg)", async () => {
    expect(await detectContent(await image("png"), "image/jpeg", "photo.jpg")).toEqual({ mime: "image/png", extension: "png", type: "image" });
  });

  it("prefers the detected type over a text declaration", async () => {
    expect(await detectContent(pdf, "text/plain")).toMatchObject({ mime: "application/pdf" });
  });

  it("keeps a declared document format that refines a detected container", async () => {
    const docx = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
    expect(await detectContent(zip("a.txt", "hi"), docx)).toEqual({ mime: docx, extension: "docx", type: "multimedia-document" });
    expect(await detectContent(cfb, "application/msword")).toEqual({ mime: "application/msword", extension: "doc", type: "multimedia-document" });
    // ...but a container is not refined into an unrelated type.
    expect(await detectContent(zip("a.txt", "hi"), "image/png")).toEqual({ mime: "application/zip", extension: "zip", type: "file" });
    expect(await detectContent(cfb, null)).toEqual({ mime: "application/x-cfb", extension: "cfb", type: "file" });
  });

  it("keeps the declared type of unrecognised binary (random bytes declared image/png)", async () => {
    expect(await detectContent(NOISE, "image/png")).toEqual({ mime: "image/png", extension: "png", type: "image" });
  });

  it("falls back to application/octet-stream and the file name's extension", async () => {
    expect(await detectContent(NOISE, null, "dump.BIN")).toEqual({ mime: "application/octet-stream", extension: "bin", type: "file" });
    expect(await detectContent(NOISE, "not a mime", "noext")).toEqual({ mime: "application/octet-stream", extension: null, type: "file" });
  });

  it("does not believe a text declaration for binary bytes", async () => {
    expect(await detectContent(NOISE, "text/plain")).toMatchObject({ mime: "application/octet-stream", type: "file" });
    expect(await detectContent(NOISE, "application/json")).toMatchObject({ mime: "application/octet-stream", type: "file" });
  });
});

describe("detectContent: text formats", () => {
  it("plain text without a declaration is text/plain", async () => {
    expect(await detectContent(utf8("hello, world\nsecond line\n"), null)).toEqual({ mime: "text/plain", extension: "txt", type: "plaintext-document" });
  });

  it("keeps a specific declared text type, normalised", async () => {
    expect(await detectContent(utf8("# Title\n\ntext"), "Text/Markdown; charset=UTF-8")).toEqual({ mime: "text/markdown", extension: "md", type: "plaintext-document" });
    expect(await detectContent(utf8("a,b\n1,2\n"), "text/csv")).toEqual({ mime: "text/csv", extension: "csv", type: "plaintext-document" });
    expect(await detectContent(utf8("key: value\n"), "application/x-yaml")).toMatchObject({ mime: "application/yaml", type: "plaintext-document" });
  });

  it.each([
    [null],
    ["text/plain"],
    ["application/octet-stream"],
    ["invalid"],
  ])("sniffs HTML (declared %s)", async (declared) => {
    expect(await detectContent(utf8(html), declared)).toEqual({ mime: "text/html", extension: "html", type: "website" });
  });

  it("sniffs HTML fragments the way browsers do", async () => {
    expect(await detectContent(utf8("  <div class=x>hi</div>"), null)).toMatchObject({ mime: "text/html" });
    expect(await detectContent(utf8("<abbr>not a sniffable start</abbr>"), null)).toMatchObject({ mime: "text/plain" });
  });

  it.each([
    [svg, null],
    [svg, "text/plain"],
    [svg, "application/xml"],
    [svg, "image/png"],
    [`<?xml version="1.0" encoding="UTF-8"?>\n<!-- made by hand -->\n${svg}`, null],
    [`<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">${svg}`, "text/xml"],
  ])("sniffs SVG %#", async (content, declared) => {
    expect(await detectContent(utf8(content), declared)).toEqual({ mime: "image/svg+xml", extension: "svg", type: "image" });
  });

  it("treats other XML as a plain-text document, keeping a specific +xml declaration", async () => {
    const xml = '<?xml version="1.0"?><note><to>x</to></note>';
    expect(await detectContent(utf8(xml), null)).toEqual({ mime: "application/xml", extension: "xml", type: "plaintext-document" });
    expect(await detectContent(utf8(xml), "application/rss+xml")).toMatchObject({ mime: "application/rss+xml", type: "plaintext-document" });
    expect(await detectContent(utf8('<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"/>'), null)).toMatchObject({
      mime: "application/xhtml+xml",
      type: "website",
    });
  });

  it("sniffs JSON, whole or cut off in a head", async () => {
    expect(await detectContent(utf8('{"a": [1, 2, {"b": null}]}'), null)).toEqual({ mime: "application/json", extension: "json", type: "plaintext-document" });
    expect(await detectContent(utf8("[1, 2, 3]"), "text/plain")).toMatchObject({ mime: "application/json" });
    const head = utf8(`{"items": [${'"x",'.repeat(2000)}`).subarray(0, 4100);
    expect(await detectContent(head, null)).toMatchObject({ mime: "application/json" });
    expect(await detectContent(utf8("{not json}"), null)).toMatchObject({ mime: "text/plain" });
  });

  it("accepts a UTF-8 character cut at the end of the head", async () => {
    const text = Buffer.from("é".repeat(3000)).subarray(0, 4101); // ends mid-character
    expect(await detectContent(text, null)).toMatchObject({ mime: "text/plain" });
  });

  it("accepts UTF-16 with a BOM and a declared 8-bit charset", async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("hello <svg> fan", "utf16le")]);
    expect(await detectContent(utf16, null)).toMatchObject({ mime: "text/plain", type: "plaintext-document" });
    const utf16svg = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(svg, "utf16le").swap16()]);
    expect(await detectContent(utf16svg, null)).toMatchObject({ mime: "image/svg+xml" });
    // ...while FF FE followed by binary stays what file-type says (an MPEG audio frame sync).
    const mpeg = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.alloc(1000)]);
    expect(await detectContent(mpeg, null)).toMatchObject({ mime: "audio/mpeg", type: "audio" });
    const latin1 = Buffer.from("café crème", "latin1");
    expect(await detectContent(latin1, "text/plain; charset=ISO-8859-1")).toMatchObject({ mime: "text/plain" });
    expect(await detectContent(latin1, "text/plain")).toMatchObject({ mime: "application/octet-stream" });
  });

  it("handles empty content by the declaration", async () => {
    expect(await detectContent(Buffer.alloc(0), null)).toEqual({ mime: "application/octet-stream", extension: null, type: "file" });
    expect(await detectContent(Buffer.alloc(0), "text/plain")).toMatchObject({ mime: "text/plain" });
  });
});

describe("normaliseMime / assetTypeForMime", () => {
  it("normalises", () => {
    expect(normaliseMime("  Image/JPG ; q=1")).toBe("image/jpeg");
    expect(normaliseMime("text/plain;charset=utf-8")).toBe("text/plain");
    expect(normaliseMime("")).toBeNull();
    expect(normaliseMime(null)).toBeNull();
    expect(normaliseMime("text")).toBeNull();
    expect(normaliseMime("text/plain extra")).toBeNull();
  });

  it.each([
    ["image/svg+xml", "image"],
    ["video/mp4", "video"],
    ["audio/mpeg", "audio"],
    ["text/plain", "plaintext-document"],
    ["text/markdown", "plaintext-document"],
    ["text/csv", "plaintext-document"],
    ["application/json", "plaintext-document"],
    ["application/ld+json", "plaintext-document"],
    ["text/xml", "plaintext-document"],
    ["application/pdf", "multimedia-document"],
    ["application/msword", "multimedia-document"],
    ["application/vnd.openxmlformats-officedocument.wordprocessingml.document", "multimedia-document"],
    ["application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "multimedia-document"],
    ["application/vnd.openxmlformats-officedocument.presentationml.presentation", "multimedia-document"],
    ["application/vnd.oasis.opendocument.text", "multimedia-document"],
    ["application/vnd.oasis.opendocument.spreadsheet", "multimedia-document"],
    ["application/vnd.oasis.opendocument.presentation", "multimedia-document"],
    ["application/vnd.ms-excel", "multimedia-document"],
    ["application/rtf", "multimedia-document"],
    ["text/rtf", "multimedia-document"],
    ["application/epub+zip", "multimedia-document"],
    ["text/html", "website"],
    ["application/xhtml+xml", "website"],
    ["application/zip", "file"],
    ["application/octet-stream", "file"],
    ["application/x-msdownload", "file"],
  ])("%s is %s", (mime, type) => {
    expect(assetTypeForMime(mime)).toBe(type);
  });
});

describe("describeImage", () => {
  it.each([
    ["png", 4, true],
    ["jpeg", 3, false],
    ["webp", 4, true],
    ["gif", 3, true], // libvips always loads GIF with an alpha channel
  ] as const)("reads %s metadata", async (format, channels, hasAlpha) => {
    expect(await describeImage(await image(format, channels))).toEqual({ width: 5, height: 3, format, hasAlpha, pages: 1 });
  });

  it("reports frames of an animation and per-frame height", async () => {
    expect(await describeImage(await animatedGif())).toMatchObject({ width: 4, height: 2, pages: 3, format: "gif" });
  });

  it("reports EXIF orientation without rotating", async () => {
    const jpeg = await sharp({ create: { width: 6, height: 2, channels: 3, background: "white" } })
      .jpeg()
      .withMetadata({ orientation: 6 })
      .toBuffer();
    expect(await describeImage(jpeg)).toMatchObject({ width: 6, height: 2, orientation: 6 });
  });

  it("reads SVG dimensions and a file path", async () => {
    expect(await describeImage(Buffer.from(svg))).toMatchObject({ width: 10, height: 20, format: "svg" });
    const dir = await mkdtemp(path.join(tmpdir(), "sieve-ct-"));
    try {
      const file = path.join(dir, "a.png");
      await writeFile(file, await image("png"));
      expect(await describeImage(file)).toMatchObject({ width: 5, height: 3, format: "png" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("returns null for unreadable input, a missing file and an absurd header", async () => {
    expect(await describeImage(NOISE)).toBeNull();
    expect(await describeImage(Buffer.from("hello"))).toBeNull();
    expect(await describeImage("/nonexistent/sieve.png")).toBeNull();
    const bomb = '<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"/>';
    expect(await describeImage(Buffer.from(bomb))).toBeNull();
  });
});
