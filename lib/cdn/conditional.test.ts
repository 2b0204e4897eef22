import { describe, expect, it } from "vitest";
import { contentDisposition, etagMatches, isActiveContent, parseRange } from "@/lib/cdn/conditional";

describe("CDN HTTP semantics", () => {
  it("matches If-None-Match lists, weak tags and *", () => {
    expect(etagMatches('"a", "b"', '"b"')).toBe(true);
    expect(etagMatches('W/"b"', '"b"')).toBe(true);
    expect(etagMatches("*", '"b"')).toBe(true);
    expect(etagMatches('"c"', '"b"')).toBe(false);
    expect(etagMatches(undefined, '"b"')).toBe(false);
  });

  it("parses one byte range, suffixes and open ends; ignores what it does not serve", () => {
    expect(parseRange("bytes=0-9", 100, undefined, '"e"')).toEqual({ kind: "range", start: 0, end: 9 });
    expect(parseRange("bytes=90-", 100, undefined, '"e"')).toEqual({ kind: "range", start: 90, end: 99 });
    expect(parseRange("bytes=50-500", 100, undefined, '"e"')).toEqual({ kind: "range", start: 50, end: 99 });
    expect(parseRange("bytes=-10", 100, undefined, '"e"')).toEqual({ kind: "range", start: 90, end: 99 });
    expect(parseRange("bytes=-1000", 100, undefined, '"e"')).toEqual({ kind: "range", start: 0, end: 99 });
    expect(parseRange("bytes=100-", 100, undefined, '"e"')).toEqual({ kind: "unsatisfiable" });
    expect(parseRange("bytes=-0", 100, undefined, '"e"')).toEqual({ kind: "unsatisfiable" });
    for (const ignored of ["bytes=0-1,5-6", "items=0-1", "bytes=5-1", "bytes=-", "bytes=a-b"]) {
      expect(parseRange(ignored, 100, undefined, '"e"')).toEqual({ kind: "none" });
    }
    expect(parseRange("bytes=0-9", 100, '"old"', '"e"')).toEqual({ kind: "none" });
    expect(parseRange("bytes=0-9", 100, '"e"', '"e"')).toEqual({ kind: "range", start: 0, end: 9 });
  });

  it("treats scriptable types as active content", () => {
    for (const type of ["image/svg+xml", "text/html; charset=utf-8", "application/xhtml+xml", "text/xml", "application/javascript"]) {
      expect(isActiveContent(type)).toBe(true);
    }
    for (const type of ["image/png", "text/plain", "application/pdf", "video/mp4"]) expect(isActiveContent(type)).toBe(false);
  });

  it("writes file names safely, with a UTF-8 form", () => {
    expect(contentDisposition("inline", 'a "b".png')).toBe(`inline; filename="a _b_.png"; filename*=UTF-8''a%20%22b%22.png`);
    expect(contentDisposition("attachment", "été.svg")).toBe(`attachment; filename="_t_.svg"; filename*=UTF-8''%C3%A9t%C3%A9.svg`);
  });
});
