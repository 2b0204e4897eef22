import { z } from "zod";
import { describe, expect, it } from "vitest";
import { findUnstorableJson, isStorableText, jsonValue, STORABLE_TEXT_MESSAGE, text, uploadContentString, webUrl } from "@/lib/core/schemas";

const messages = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error?.issues.map((i) => i.message) ?? [];

describe("isStorableText", () => {
  it("refuses NUL and unpaired surrogates, keeps everything else", () => {
    for (const bad of ["\u0000", "a\u0000b", "\ud800", "x\udfff", "\udc00\ud800", "\ud83d"]) expect(isStorableText(bad), JSON.stringify(bad)).toBe(false);
    for (const good of ["", "plain", "\ud83d\ude00", "\ufffe", "\uffff", "\u200f\u202e", "\u0001\u001f", "é"]) {
      expect(isStorableText(good), JSON.stringify(good)).toBe(true);
    }
  });
});

describe("text()", () => {
  it("composes with min/max/regex and gives one clear message for unstorable input", () => {
    const name = text().min(1).max(5).regex(/^[a-z\u0000]+$/);
    expect(name.parse("abc")).toBe("abc");
    expect(messages(name, "a\u0000")).toEqual([STORABLE_TEXT_MESSAGE]);
    expect(messages(name, "\ud800".repeat(10))).toEqual([STORABLE_TEXT_MESSAGE]);
    expect(messages(name, "abcdef")).toHaveLength(1);
  });

  it("runs before trim, so a NUL cannot hide in whitespace", () => {
    expect(messages(text().trim().min(1), " \u0000 ")).toEqual([STORABLE_TEXT_MESSAGE]);
  });

  it("webUrl checks the URL as sent (zod does not normalise it)", () => {
    expect(webUrl().safeParse("https://example.com/a?b=c").success).toBe(true);
    expect(messages(webUrl(), "https://example.com/\u0000")).toEqual([STORABLE_TEXT_MESSAGE]);
  });

  it("upload content strings keep NUL (it is content, stored as bytes)", () => {
    expect(uploadContentString().parse("text\u0000")).toBe("text\u0000");
  });
});

describe("jsonValue()", () => {
  it("names the path of an unstorable string, and the object of an unstorable key", () => {
    const schema = z.object({ options: jsonValue() });
    const stringIssue = schema.safeParse({ options: { a: [1, { b: "x\u0000" }] } }).error?.issues[0];
    expect(stringIssue?.path).toEqual(["options", "a", 1, "b"]);
    const keyIssue = schema.safeParse({ options: { a: { "k\ud800": 1 } } }).error?.issues[0];
    expect(keyIssue?.path).toEqual(["options", "a"]);
    expect(keyIssue?.message).toMatch(/^keys /);
    expect(schema.parse({ options: { n: 1e308, s: "\ud83d\ude00", l: [null, true] } })).toBeTruthy();
  });

  it("reports the first problem in document order", () => {
    expect(findUnstorableJson([{ a: "ok", b: "\u0000" }, "\ud800"])).toEqual({ path: [0, "b"], in: "string" });
  });

  it("does not overflow the stack on deep input", () => {
    let deep: unknown = "\u0000";
    for (let i = 0; i < 200_000; i++) deep = i % 2 ? [deep] : { k: deep };
    expect(findUnstorableJson(deep)?.path).toHaveLength(200_000);
  });
});
