import { describe, expect, it } from "vitest";
import { isApiError } from "@/lib/core/errors";
import { canonicalTransform, parseSelector } from "@/lib/cdn/selector";

function refusal(segment: string): { code: string; message: string } {
  try {
    parseSelector(segment);
  } catch (error) {
    if (isApiError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error(`"${segment}" was accepted`);
}

describe("parseSelector", () => {
  it("no selector is the content itself", () => {
    expect(parseSelector(undefined)).toEqual({ kind: "none" });
    expect(parseSelector("")).toEqual({ kind: "none" });
  });

  it("@name is a lens, percent-encoded or not", () => {
    expect(parseSelector("@thumbnail")).toEqual({ kind: "lens", identifier: "thumbnail" });
    expect(parseSelector("%40web-optimised")).toEqual({ kind: "lens", identifier: "web-optimised" });
    expect(parseSelector(`@${"a".repeat(50)}`)).toEqual({ kind: "lens", identifier: "a".repeat(50) });
  });

  it.each(["@", "@Thumb", "@a_b", `@${"a".repeat(51)}`, "@a%00", "@a b"])("lens %j → invalid-transform", (segment) => {
    const { code, message } = refusal(segment);
    expect(code).toBe("asset/invalid-transform");
    expect(message).toMatch(/lens identifier/);
  });

  it("parses options into numbers and a canonical form independent of order and spelling", () => {
    const a = parseSelector("imageTransform[format=jpg,width=300,fit=cover]");
    expect(a).toEqual({
      kind: "transform",
      step: { width: 300, fit: "cover", format: "jpeg" },
      canonical: "imageTransform[width=300,fit=cover,format=jpeg]",
    });
    const b = parseSelector("imageTransform%5Bwidth%3D300%2Cfit%3Dcover%2Cformat%3Djpeg%5D");
    expect(b).toEqual(a);
    expect(parseSelector("imageTransform[quality=100,height=8192,width=1,format=avif,fit=outside]")).toMatchObject({
      step: { width: 1, height: 8192, fit: "outside", format: "avif", quality: 100 },
      canonical: "imageTransform[width=1,height=8192,fit=outside,format=avif,quality=100]",
    });
  });

  it.each(["webp", "avif", "jpeg", "png", "gif"])("format=%s is accepted", (format) => {
    expect(parseSelector(`imageTransform[format=${format}]`)).toMatchObject({ step: { format } });
  });

  it.each(["cover", "contain", "fill", "inside", "outside"])("fit=%s is accepted", (fit) => {
    expect(parseSelector(`imageTransform[fit=${fit}]`)).toMatchObject({ step: { fit } });
  });

  it.each([
    ["resize[width=100]", "another transform name"],
    ["ImageTransform[width=100]", "wrong case"],
    ["imageTransform", "no brackets"],
    ["imageTransform[width=100", "missing bracket"],
    ["imageTransform(width=100)", "parentheses"],
    ["imageTransform[width=100]x", "trailing junk"],
    ["imageTransform[width=100]]", "extra bracket"],
    ["imageTransform[[width=100]]", "nested brackets"],
    ["imageTransform[]", "no options"],
    ["imageTransform[width=100,]", "empty trailing pair"],
    ["imageTransform[,width=100]", "empty leading pair"],
    ["imageTransform[width=100,,height=5]", "empty pair"],
    ["imageTransform[width]", "no value"],
    ["imageTransform[width=]", "empty value"],
    ["imageTransform[=100]", "empty key"],
    ["imageTransform[width==100]", "double ="],
    ["imageTransform[width= 100]", "whitespace"],
    ["imageTransform[width=100;height=5]", "semicolon separator"],
    ["imageTransform%5Bwidth%3D100%5D%20", "encoded trailing space"],
    ["imageTransform%5", "malformed percent-encoding"],
    ["%E0%A4%A", "truncated UTF-8"],
    ["thumbnail", "bare word"],
  ])("%j (%s) → invalid-transform", (segment) => {
    const { code, message } = refusal(segment);
    expect(code).toBe("asset/invalid-transform");
    expect(message.length).toBeLessThan(300);
  });

  it.each([
    ["imageTransform[width=0]", /width=0 is invalid: width must be an integer from 1 to 8192/],
    ["imageTransform[width=8193]", /width must be an integer from 1 to 8192/],
    ["imageTransform[height=-5]", /height must be an integer from 1 to 8192/],
    ["imageTransform[width=+100]", /width must be/],
    ["imageTransform[width=0100]", /width must be/],
    ["imageTransform[width=1e3]", /width must be/],
    ["imageTransform[width=100px]", /width must be/],
    ["imageTransform[width=100.0]", /width must be/],
    ["imageTransform[width=99999999999999999999]", /width must be/],
    ["imageTransform[quality=101]", /quality must be an integer from 1 to 100/],
    ["imageTransform[fit=crop]", /fit must be one of cover, contain, fill, inside, outside/],
    ["imageTransform[fit=Cover]", /fit must be one of/],
    ["imageTransform[format=tiff]", /format must be one of webp, avif, jpeg, png, gif \(or jpg\)/],
    ["imageTransform[colour=red]", /unknown option "colour"; allowed options: width, height, fit, format, quality/],
    ["imageTransform[width=100,width=200]", /option "width" is given twice/],
    ["imageTransform[format=jpg,format=jpeg]", /option "format" is given twice/],
  ])("%j → invalid-transform-options naming the key", (segment, reason) => {
    const { code, message } = refusal(segment);
    expect(code).toBe("asset/invalid-transform-options");
    expect(message).toMatch(reason);
  });

  it("echoes at most a short piece of a long selector", () => {
    expect(refusal(`imageTransform[${"x".repeat(5000)}=1]`).message.length).toBeLessThan(300);
    expect(refusal(`${"y".repeat(5000)}`).message.length).toBeLessThan(300);
  });

  it("canonicalTransform is stable for lens steps too", () => {
    expect(canonicalTransform({ quality: 75, format: "webp", fit: "cover", height: 256, width: 256 })).toBe(
      "imageTransform[width=256,height=256,fit=cover,format=webp,quality=75]",
    );
    // Every canonical form parses back to itself.
    const parsed = parseSelector("imageTransform[quality=75,width=256]");
    expect(parsed.kind === "transform" && parseSelector(parsed.canonical)).toEqual(parsed);
  });
});
