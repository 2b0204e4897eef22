import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeDocument, makeJpeg } from "@/tests/support/media-fixtures";
import { extractDocument, PANDOC_FORMATS } from "./document";
import { MediaToolError } from "./tools";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "sieve-document-test-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const MIME: Record<string, string> = {
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  odt: "application/vnd.oasis.opendocument.text",
  epub: "application/epub+zip",
};

describe("extractDocument (pandoc)", () => {
  it.each(["docx", "odt", "epub"] as const)("%s: text in reading order and the embedded image", async (format) => {
    const jpeg = await makeJpeg({ width: 80, height: 60, color: { r: 200, g: 40, b: 40 } });
    const file = await makeDocument(dir, { format, title: "Garden club", text: "Minutes of the spring fair meeting.", jpeg });
    const doc = await extractDocument(file, MIME[format]!);
    expect(doc.format).toBe(format);
    expect(doc.text).toContain("Minutes of the spring fair meeting.");
    expect(doc.images).toHaveLength(1);
    expect(doc.images[0]).toMatchObject({ mimeType: "image/jpeg", width: 80, height: 60 });
  });

  it("rtf: text only", async () => {
    const file = await makeDocument(dir, { format: "rtf", title: "Note", text: "Bring sandwiches." });
    const doc = await extractDocument(file, "application/rtf");
    expect(doc.text).toContain("Bring sandwiches.");
    expect(doc.images).toEqual([]);
  });

  it("refuses formats it cannot read, and a corrupt file is a typed failure", async () => {
    await expect(extractDocument("/nonexistent", "application/msword")).rejects.toMatchObject({ code: "invalid-input" });
    const corrupt = path.join(dir, "corrupt.docx");
    await writeFile(corrupt, Buffer.from("PK\u0003\u0004 not really a zip"));
    await expect(extractDocument(corrupt, MIME.docx!)).rejects.toBeInstanceOf(MediaToolError);
    expect(Object.values(PANDOC_FORMATS)).toContain("rtf");
  });

  it("a missing pandoc is reported as missing-tool", async () => {
    const file = await makeDocument(dir, { format: "docx", title: "x", text: "y" });
    await expect(extractDocument(file, MIME.docx!, { tools: { pandoc: "/nonexistent/pandoc" } })).rejects.toMatchObject({ code: "missing-tool" });
  });
});
