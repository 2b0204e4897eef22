import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeInlineContent } from "@/lib/assets/inline-content";
import { createAssetBody, partBody } from "@/lib/assets/schemas";
import { ApiError } from "@/lib/core/errors";
import { restoreLargeValues, type LargeValue } from "@/lib/http/large-values";

type Forms = Parameters<typeof decodeInlineContent>[0];

/** Decodes `content` as the JSON reader would hand it over when `key` was read aside as a large value. */
function decodeLarge(content: Record<string, unknown>, key: string, large: LargeValue): Buffer {
  const body = { content: { ...content, [key]: large.kind === "string" ? "" : [] } };
  restoreLargeValues(body, [{ ...large, path: ["content", key] }]);
  return decodeInlineContent(body.content as Forms);
}

/** The outcome of a decode: the bytes as hex, or the error's code and message. */
function outcome(decode: () => Buffer): string {
  try {
    return decode().toString("hex");
  } catch (error) {
    if (error instanceof ApiError) return `${error.code}: ${error.message}`;
    throw error;
  }
}

/** Same outcome for a string form sent small (parsed) and large (its UTF-8 bytes, decoded in place). */
function expectSameForString(key: "plainText" | "base64" | "buffer" | "data", text: string) {
  const small = outcome(() => decodeInlineContent({ [key]: text } as Forms));
  const large = outcome(() => decodeLarge({}, key, { kind: "string", bytes: Buffer.from(text, "utf8") }));
  expect(large, JSON.stringify(text)).toBe(small);
  return small;
}

const base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_=";
const spaces = [" ", "\n", "\t", "\r", "\v", "\f", "\u00a0", "\u1680", "\u2000", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\ufeff"];
const notSpaces = ["\u0085", "\u200b", "\u180e", "é", "*", "\u0000", "\ud800"];
const base64ish = fc
  .array(fc.oneof({ weight: 20, arbitrary: fc.constantFrom(...base64Alphabet.split("")) }, fc.constantFrom(...spaces), fc.constantFrom(...notSpaces)), {
    maxLength: 40,
  })
  .map((chars) => chars.join(""));

describe("large inline content decodes exactly as the same content sent small", () => {
  it("base64 and buffer: padding, base64url, white space (ASCII and Unicode), invalid characters", () => {
    for (const text of ["", "AA==", "AAA=", "AAAA", "AAAAA", "AAAAAA", "AB==", "A===", "=", "-_-_", "-_-_A", "+/+/", "+/+/A", "A A\u00a0A\u3000A", "AA=A", "AA= ="]) {
      expectSameForString("base64", text);
      expectSameForString("buffer", text);
    }
    expect(expectSameForString("base64", Buffer.from("hello world").toString("base64"))).toBe(Buffer.from("hello world").toString("hex"));
    fc.assert(fc.property(base64ish, (text) => void expectSameForString("base64", text)), { numRuns: 3000 });
  });

  it("data: base64 URLs, percent-encoded URLs (valid and malformed UTF-8), and plain base64", () => {
    for (const text of [
      "data:text/plain;base64,aGk=",
      "data:;base64,aGk=",
      "data:text/plain;charset=utf-8;base64,aGk=",
      "data:text/plain;base64;x=y,aGk=",
      "data:text/plain;base64;base64,aGk=",
      "data:base64,aGk=",
      "data:,h%C3%A9llo%20world%2C%25",
      "data:,%E2%82%AC%F0%9F%98%80 raw é",
      "data:,%FF",
      "data:,%C0%80",
      "data:,%ED%A0%80",
      "data:,%F4%90%80%80",
      "data:,%E2%82",
      "data:,%E2%82%",
      "data:,%G1",
      "data:,%",
      "data:no-comma",
      "aGk=",
      "data",
    ]) {
      expectSameForString("data", text);
    }
    const percentEncoded = fc
      .array(fc.oneof(fc.integer({ min: 0, max: 255 }).map((byte) => `%${byte.toString(16).padStart(2, "0")}`), fc.constantFrom("a", "é", "%", "%4", ",")), {
        maxLength: 12,
      })
      .map((parts) => `data:text/plain,${parts.join("")}`);
    fc.assert(fc.property(percentEncoded, (text) => void expectSameForString("data", text)), { numRuns: 3000 });
  });

  it("plainText: the bytes as read", () => {
    expect(expectSameForString("plainText", "héllo \u0000 \ud83d\ude00")).toBe(Buffer.from("héllo \u0000 \ud83d\ude00").toString("hex"));
  });

  it("byte arrays: uint8Array, buffer, buffer {type, data} and data", () => {
    const bytes = Buffer.from([0, 1, 255]);
    for (const key of ["uint8Array", "buffer", "data"]) {
      expect(decodeLarge({}, key, { kind: "bytes", bytes })).toEqual(bytes);
    }
    const body = { content: { buffer: { type: "Buffer", data: [] as number[] } } };
    restoreLargeValues(body, [{ kind: "bytes", bytes, path: ["content", "buffer", "data"] }]);
    expect(decodeInlineContent(body.content as Forms)).toEqual(bytes);
  });

  it("decodes a large value once: a second call gives the same bytes, not a decode of the decoded", () => {
    const body = { content: { base64: "" } };
    restoreLargeValues(body, [{ kind: "string", bytes: Buffer.from("aGVsbG8="), path: ["content", "base64"] }]);
    expect(decodeInlineContent(body.content).toString()).toBe("hello");
    expect(decodeInlineContent(body.content).toString()).toBe("hello");
  });
});

it("a data: URL with malformed percent-encoding is 400 upload/invalid-content, not a 500", () => {
  expect(outcome(() => decodeInlineContent({ data: "data:,%E0%A4%A" }))).toBe(
    "upload/invalid-content: data is not a valid data: URL (malformed percent-encoding).",
  );
});

it("the content schemas accept the placeholders the JSON reader leaves for large values", () => {
  const placeholders = [{ plainText: "" }, { base64: "" }, { uint8Array: [] }, { buffer: [] }, { buffer: "" }, { buffer: { type: "Buffer", data: [] } }, { data: "" }, { data: [] }];
  for (const form of placeholders) {
    const content = { ...form, type: "application/octet-stream" };
    expect(createAssetBody.safeParse({ name: "a", content }).success, JSON.stringify(form)).toBe(true);
    expect(createAssetBody.safeParse({ name: "a", part: content }).success, JSON.stringify(form)).toBe(true);
    expect(partBody.safeParse({ part: content }).success, JSON.stringify(form)).toBe(true);
  }
});
