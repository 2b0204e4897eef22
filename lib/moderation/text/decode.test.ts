import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { decodeTextForAnalysis, detectTextEncoding, textLike } from "./decode";

const threat = "I will hurt you";

describe("decodeTextForAnalysis", () => {
  it("decodes UTF-16LE and UTF-16BE with a BOM", () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(threat, "utf16le")]);
    expect(decodeTextForAnalysis(le)).toMatchObject({ text: threat, encoding: "utf-16le" });
    const be = Buffer.from(le.subarray(2)).swap16();
    expect(decodeTextForAnalysis(Buffer.concat([Buffer.from([0xfe, 0xff]), be]))).toMatchObject({ text: threat, encoding: "utf-16be" });
  });

  it("recognises UTF-16 without a BOM by its zero bytes", () => {
    expect(decodeTextForAnalysis(Buffer.from(threat, "utf16le"))).toMatchObject({ text: threat, encoding: "utf-16le" });
    expect(detectTextEncoding(Buffer.from(Buffer.from(threat, "utf16le")).swap16())).toBe("utf-16be");
  });

  it("reads Latin-1 text that is not valid UTF-8", () => {
    const latin = Buffer.from("Je vais te tuer, espèce d'idiot", "latin1");
    expect(decodeTextForAnalysis(latin)).toMatchObject({ text: "Je vais te tuer, espèce d'idiot", encoding: "windows-1252" });
  });

  it("maps windows-1252's 0x80–0x9F to their letters, not to control characters", () => {
    const smart = Buffer.from([0x93, 0x68, 0x75, 0x72, 0x74, 0x94, 0x20, 0x80, 0x35]);
    expect(decodeTextForAnalysis(smart)).toMatchObject({ text: "“hurt” €5", encoding: "windows-1252", controlShare: 0 });
  });

  it("turns control characters into spaces and counts them", () => {
    const decoded = decodeTextForAnalysis(Buffer.from(`${threat}\u0000`));
    expect(decoded.text).toBe(`${threat} `);
    expect(decoded.controlShare).toBeCloseTo(1 / 16);
  });
});

describe("textLike", () => {
  it("accepts text with a stray NUL and refuses binary noise", () => {
    expect(textLike(Buffer.from(`${threat}\u0000`))?.text).toBe(`${threat} `);
    expect(textLike(randomBytes(4096))).toBeNull();
    expect(textLike(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]))).toBeNull();
    expect(textLike(Buffer.alloc(0))).toBeNull();
  });
});
