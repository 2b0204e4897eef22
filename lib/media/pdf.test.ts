import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractPdf, parsePdfImagesList } from "@/lib/media/pdf";
import { MediaToolError, runTool } from "@/lib/media/tools";
import { jpegInfo, makeJpeg, makePdf } from "@/tests/support/media-fixtures";

let dir = "";
let pdfPath = "";
let red: Buffer;
let gray: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "pdf-test-"));
  [red, gray] = await Promise.all([makeJpeg({ width: 120, height: 80 }), makeJpeg({ width: 64, height: 64, grayscale: true, color: { r: 90, g: 90, b: 90 } })]);
  const tiny = await makeJpeg({ width: 8, height: 8 });
  pdfPath = path.join(dir, "doc.pdf");
  await writeFile(
    pdfPath,
    makePdf({
      pages: [
        { text: "Hello world (page one)\nSecond line: café, naïve, 100 \\ 2", jpeg: red },
        { text: "Page two has no image" },
        { text: "Page three shows a grey picture", jpeg: gray },
        { text: "Page four has only an icon", jpeg: tiny },
      ],
    }),
  );
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("makePdf fixture", () => {
  it("is a clean PDF 1.4 that poppler reads without repairs", async () => {
    const info = await runTool("pdfinfo", [pdfPath]);
    expect(info.stderr).toBe("");
    expect(info.stdout.toString()).toMatch(/PDF version:\s+1\.4/);
    const text = await runTool("pdftotext", [pdfPath, "-"]);
    expect(text.stderr).toBe(""); // wrong xref offsets make poppler print "xref num … not found … reconstruct"
    expect(jpegInfo(gray)).toMatchObject({ width: 64, height: 64, components: 1 });
  });
});

describe("extractPdf", () => {
  it("extracts text per page and embedded JPEGs with their page numbers", async () => {
    const result = await extractPdf(pdfPath);
    expect(result.pageCount).toBe(4);
    expect(result.pageTexts).toHaveLength(4);
    expect(result.pageTexts[0]).toBe("Hello world (page one)\nSecond line: café, naïve, 100 \\ 2");
    expect(result.pageTexts[1]).toBe("Page two has no image");
    expect(result.text).toContain("Page three shows a grey picture");
    expect(result.text.split("\n\n")).toHaveLength(4);
    expect(result.textTruncated).toBe(false);

    expect(result.images.map(({ page, index, mimeType, width, height }) => ({ page, index, mimeType, width, height }))).toEqual([
      { page: 1, index: 0, mimeType: "image/jpeg", width: 120, height: 80 },
      { page: 3, index: 1, mimeType: "image/jpeg", width: 64, height: 64 },
    ]);
    // JPEGs come out byte for byte as embedded.
    expect(result.images[0]!.data.equals(red)).toBe(true);
    expect(result.images[1]!.data.equals(gray)).toBe(true);
    expect(result.skippedImages).toEqual([]);
    expect(result.imageStats).toMatchObject({ listed: 3, tooSmall: 1, overLimit: 0 });
  });

  it("keeps document image numbering when extraction starts after page 1", async () => {
    const many = path.join(dir, "many.pdf");
    const icon = await makeJpeg({ width: 10, height: 10 });
    await writeFile(many, makePdf({ pages: [{ text: "icon", jpeg: icon }, { text: "blank" }, { text: "photo", jpeg: red }, { text: "photo 2", jpeg: gray }] }));
    const result = await extractPdf(many, { maxImages: 1 });
    expect(result.images.map((i) => [i.page, i.index])).toEqual([[3, 1]]);
    expect(result.images[0]!.data.equals(red)).toBe(true);
    expect(result.imageStats).toMatchObject({ tooSmall: 1, overLimit: 1 });
  });

  it("re-encodes or skips images over maxImageBytes, and can skip images entirely", async () => {
    const big = await sharp({ create: { width: 600, height: 400, channels: 3, background: "#3366cc" } })
      .composite([{ input: Buffer.from(`<svg width="600" height="400"><text x="10" y="200" font-size="80">noise</text></svg>`) }])
      .jpeg({ quality: 100 })
      .toBuffer();
    const file = path.join(dir, "big.pdf");
    await writeFile(file, makePdf({ pages: [{ text: "big", jpeg: big }] }));
    const reencoded = await extractPdf(file, { maxImageBytes: big.length - 1 });
    expect(reencoded.images).toHaveLength(1);
    expect(reencoded.images[0]!.data.length).toBeLessThan(big.length);
    expect(reencoded.images[0]).toMatchObject({ mimeType: "image/jpeg", width: 600, height: 400 });

    const skipped = await extractPdf(file, { maxImageBytes: 200 });
    expect(skipped.images).toEqual([]);
    expect(skipped.skippedImages).toEqual([{ page: 1, index: 0, reason: "too-large" }]);

    const none = await extractPdf(pdfPath, { maxImages: 0 });
    expect(none.images).toEqual([]);
    expect(none.pageCount).toBe(4);
  });

  it("truncates long text at maxTextBytes", async () => {
    const result = await extractPdf(pdfPath, { maxTextBytes: 30 });
    expect(result.textTruncated).toBe(true);
    expect(Buffer.byteLength(result.text)).toBeLessThanOrEqual(30);
    expect(result.text.startsWith("Hello world")).toBe(true);
  });

  it("fails with typed errors on malformed or missing files and missing tools", async () => {
    const bytes = makePdf({ pages: [{ text: "cut short", jpeg: red }] });
    const truncated = path.join(dir, "truncated.pdf");
    await writeFile(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const garbage = path.join(dir, "garbage.pdf");
    await writeFile(garbage, "this is not a PDF at all");

    for (const file of [truncated, garbage]) {
      const error = await extractPdf(file).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MediaToolError);
      expect(error).toMatchObject({ code: "failed", tool: "pdfinfo" });
      expect((error as MediaToolError).stderrTail).toMatch(/xref|trailer/i);
    }
    await expect(extractPdf(path.join(dir, "missing.pdf"))).rejects.toMatchObject({ code: "invalid-input" });
    await expect(extractPdf(pdfPath, { tools: { pdftotext: "/nonexistent/pdftotext" } })).rejects.toMatchObject({ code: "missing-tool" });
    await expect(extractPdf(pdfPath, { timeoutMs: 1 })).rejects.toMatchObject({ code: "timeout" });
    const controller = new AbortController();
    controller.abort();
    await expect(extractPdf(pdfPath, { signal: controller.signal })).rejects.toMatchObject({ code: "aborted" });
  });
});

describe("parsePdfImagesList", () => {
  it("parses poppler 22's list, including inline images and soft masks", () => {
    // Recorded: `pdfimages -list` (poppler 22.12.0) on a page with an inline image and an RGB image with an /SMask.
    const recorded = [
      "page   num  type   width height color comp bpc  enc interp  object ID x-ppi y-ppi size ratio",
      "--------------------------------------------------------------------------------------------",
      "   1     0 image      20    20  gray    1   8  image  no   [inline]      14    14    0B 0.0%",
      "   1     1 image      20    20  rgb     3   8  image  no         5  0    14    14   21B 1.8%",
      "   1     2 smask      20    20  gray    1   8  image  no         5  0    14    14   14B 3.5%",
      "  12    17 image    2480  3508  gray    1   1  jbig2  no        88  0   300   300 45.1K 4.2%",
    ].join("\n");
    expect(parsePdfImagesList(recorded)).toEqual([
      { page: 1, num: 0, type: "image", width: 20, height: 20, objectId: "inline" },
      { page: 1, num: 1, type: "image", width: 20, height: 20, objectId: "5 0" },
      { page: 1, num: 2, type: "smask", width: 20, height: 20, objectId: "5 0" },
      { page: 12, num: 17, type: "image", width: 2480, height: 3508, objectId: "88 0" },
    ]);
  });
});
