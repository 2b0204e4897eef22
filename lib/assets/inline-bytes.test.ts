import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeBase64InPlace, decodeBase64InPlaceStrictly, FAST_BASE64_MAX_BYTES } from "@/lib/assets/inline-bytes";
import { ApiError } from "@/lib/core/errors";

/** The decode's outcome on a copy: the bytes as hex, or the error's code. */
function outcome(decode: typeof decodeBase64InPlace, input: Buffer, start = 0): string {
  try {
    return decode(Buffer.from(input), start, "base64").toString("hex");
  } catch (error) {
    if (error instanceof ApiError) return error.code;
    throw error;
  }
}

function expectAsStrict(input: Buffer, start = 0): void {
  expect(outcome(decodeBase64InPlace, input, start), input.toString("latin1")).toBe(outcome(decodeBase64InPlaceStrictly, input, start));
}

const standard = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** Valid base64 of random bytes with up to three characters replaced or inserted: mostly near misses. */
const nearlyBase64 = fc
  .tuple(
    fc.uint8Array({ maxLength: 40 }),
    fc.array(fc.tuple(fc.nat(), fc.constantFrom(..."=-_ \n\t.$*\u00a0é".split(""), ...standard.split("")), fc.boolean()), { maxLength: 3 }),
  )
  .map(([bytes, edits]) => {
    const chars = Buffer.from(bytes).toString("base64").split("");
    for (const [at, char, insert] of edits) chars.splice(chars.length === 0 ? 0 : at % chars.length, insert ? 0 : 1, char);
    return Buffer.from(chars.join(""), "utf8");
  });

describe("base64 of inline content: the native fast path decides exactly as the strict decoder", () => {
  it("valid base64 of every padding, and large content, decode to the original bytes", () => {
    for (const size of [0, 1, 2, 3, 4, 5, 300_001, (FAST_BASE64_MAX_BYTES / 4) * 3, (FAST_BASE64_MAX_BYTES / 4) * 3 + 1]) {
      const original = randomBytes(size);
      const decoded = decodeBase64InPlace(Buffer.from(original.toString("base64")), 0, "base64");
      expect(decoded.equals(original)).toBe(true);
    }
  });

  it("near misses (misplaced padding, base64url digits mixed in, white space, invalid bytes) get the strict outcome", () => {
    // Some are refused by the fast path after it wrote over the bytes, and valid for the strict one
    // ("QQ==\n\n\n\n", "QU FB   "): it must hand them over as they were.
    for (const text of ["QQ==QUFB", "QQ=A", "Q===", "QUFB=", "QUF", "QU-B", "QU_B", "QU/B", "Q Q==", "QQ==\n\n\n\n", "QU FB   ", "-_-_", "\u00a0QUFB"]) {
      expectAsStrict(Buffer.from(text, "utf8"));
    }
    fc.assert(fc.property(nearlyBase64, (input) => expectAsStrict(input)), { numRuns: 5000 });
  });

  it("a data URL's payload, decoded from an offset, too", () => {
    for (const text of ["data:;base64,aGk=", "data:;base64,aG k=", "data:;base64,aGk=\n\n\n\n", "data:;base64,QQ=A"]) expectAsStrict(Buffer.from(text), 13);
  });
});
