import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/core/errors";
import { MAX_JSON_DEPTH } from "@/lib/http/body";
import { finishFingerprint, fingerprint, fingerprintHash } from "@/lib/http/idempotency";
import { readJsonBody, type JsonReadOptions } from "@/lib/http/json-reader";
import { largeValueAt, pathTree, restoreLargeValues } from "@/lib/http/large-values";

const CONTENT = pathTree([
  ["content", "text"],
  ["content", "bytes"],
  ["content", "buffer", "data"],
]);

/** A request whose body arrives in chunks of `chunkSize` bytes; `cancelled()` tells whether the reader gave up. */
function request(body: Uint8Array, chunkSize = 7, headers: Record<string, string> = {}) {
  let offset = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (offset >= body.length) return controller.close();
        controller.enqueue(body.slice(offset, offset + chunkSize));
        offset += chunkSize;
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  const req = new Request("http://sieve.test/v1/x", { method: "POST", body: stream, headers, duplex: "half" } as RequestInit);
  return { req, cancelled: () => cancelled };
}

const read = (body: Uint8Array | string, options: Partial<JsonReadOptions> = {}, chunkSize = 7) =>
  readJsonBody(request(typeof body === "string" ? Buffer.from(body) : body, chunkSize).req, {
    maxBytes: 1 << 30,
    maxStructureBytes: 1 << 30,
    largeValues: CONTENT,
    largeValueThreshold: 0,
    ...options,
  });

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

/** The bytes a large value at content.text gives, after validation restored it. */
async function largeText(body: Uint8Array, chunkSize: number): Promise<Buffer> {
  const { value, largeValues } = await read(body, {}, chunkSize);
  expect(largeValues).toHaveLength(1);
  expect((value as { content: { text: string } }).content.text).toBe("");
  restoreLargeValues(value, largeValues);
  return (largeValueAt((value as { content: object }).content, "text") as { bytes: Buffer }).bytes;
}

describe("readJsonBody: the structure", () => {
  it("parses any JSON as JSON.parse does, chunked anywhere", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ depthSize: "small" }), fc.integer({ min: 1, max: 16 }), async (json, chunkSize) => {
        const text = JSON.stringify({ content: json, other: json });
        const { value, largeValues } = await read(text, { largeValueThreshold: 1 << 20 }, chunkSize);
        expect(value).toEqual(JSON.parse(text));
        expect(largeValues).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it("caps nesting at MAX_JSON_DEPTH while streaming, quickly for 100 000 levels", async () => {
    const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
    await expect(read(nested(MAX_JSON_DEPTH))).resolves.toBeDefined();
    expect((await failure(read(nested(MAX_JSON_DEPTH + 1)))).code).toBe("request/validation-failed");
    const { req, cancelled } = request(Buffer.from(nested(100_000)), 4096);
    const started = performance.now();
    const error = await failure(readJsonBody(req, { maxBytes: 1 << 30, maxStructureBytes: 1 << 30 }));
    expect(error.message).toContain(`${MAX_JSON_DEPTH} levels`);
    expect(performance.now() - started).toBeLessThan(500);
    expect(cancelled()).toBe(true);
  });

  it("refuses a body over maxBytes, and a structure over maxStructureBytes while large values may exceed it", async () => {
    const big = JSON.stringify({ content: { text: "x".repeat(5000) }, note: "y".repeat(500) });
    expect((await failure(read(big, { maxBytes: 4000 }))).code).toBe("request/body-too-large");
    const refused = await failure(read(big, { maxStructureBytes: 400 }));
    expect(refused.status).toBe(413);
    expect(refused.message).toContain("raw or multipart upload");
    await expect(read(big, { maxStructureBytes: 1000 })).resolves.toBeDefined();
  });

  it("leaves values under the threshold in the structure, and reads larger ones aside", async () => {
    const body = JSON.stringify({ content: { text: "short", bytes: [1, 2, 3] } });
    const small = await read(body, { largeValueThreshold: 100 });
    expect(small).toEqual({ value: JSON.parse(body), largeValues: [] });
    const large = await read(body, { largeValueThreshold: 0 });
    expect(large.value).toEqual({ content: { text: "", bytes: [] } });
    expect(large.largeValues.map((v) => [v.path.join("."), v.kind, v.bytes.toString("hex")])).toEqual([
      ["content.text", "string", Buffer.from("short").toString("hex")],
      ["content.bytes", "bytes", "010203"],
    ]);
  });

  it("reads only declared paths aside (keys compared after unescaping), and a repeated key keeps the last value", async () => {
    const body = '{"other":{"text":"a"},"content":{"t\\u0065xt":"escaped key","nested":{"text":"no"},"buffer":{"type":"Buffer","data":[9]}}}';
    const { value, largeValues } = await read(body);
    expect(value).toEqual({ other: { text: "a" }, content: { text: "", nested: { text: "no" }, buffer: { type: "Buffer", data: [] } } });
    expect(largeValues.map((v) => v.path.join("."))).toEqual(["content.text", "content.buffer.data"]);
    for (const repeated of ['{"content":{"text":"first","text":"last"}}', '{"content":{"text":"first"},"content":{"text":"last"}}']) {
      const result = await read(repeated);
      expect(result.largeValues.map((v) => v.bytes.toString())).toEqual(["last"]);
    }
    const smallLast = await read('{"content":{"text":"first","text":7}}');
    expect(smallLast).toEqual({ value: { content: { text: 7 } }, largeValues: [] });
  });

  it("restoreLargeValues refuses a placeholder that validation replaced", async () => {
    const { largeValues } = await read('{"content":{"text":"abc"}}');
    expect(() => restoreLargeValues({ content: { text: "changed" } }, largeValues)).toThrow(/placeholder/);
  });
});

/** Encodes a string as JSON, escaping a random choice of its code units as \uXXXX (surrogate halves one by one). */
const escapedJsonString = fc.tuple(fc.string({ unit: "binary", maxLength: 30 }), fc.array(fc.boolean(), { minLength: 30, maxLength: 30 })).map(([text, escapes]) => {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const ch = text[i] as string;
    const surrogate = unit >= 0xd800 && unit <= 0xdfff;
    if (escapes[i % 30] || surrogate || unit < 0x20 || ch === '"' || ch === "\\") out += `\\u${unit.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
});

describe("readJsonBody: large strings", () => {
  it("give Buffer.from(JSON.parse(body)) byte for byte: escapes, surrogate pairs and lone halves, any chunking", async () => {
    await fc.assert(
      fc.asyncProperty(escapedJsonString, fc.integer({ min: 1, max: 9 }), async (jsonString, chunkSize) => {
        const body = Buffer.from(`{"content":{"text":${jsonString}}}`);
        const expected = Buffer.from(JSON.parse(body.toString()).content.text, "utf8");
        expect((await largeText(body, chunkSize)).toString("hex")).toBe(expected.toString("hex"));
      }),
      { numRuns: 1000 },
    );
  });

  it("replace invalid UTF-8 exactly as toString() does, also across chunk boundaries", async () => {
    const pieces = [[0xff], [0xc3], [0xc3, 0xa9], [0xe2, 0x82], [0xe2, 0x82, 0xac], [0xf0, 0x9f, 0x98], [0xed, 0xa0, 0x80], [0xc0, 0x80], [0x80], [0x61], [0x5c, 0x6e]];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...pieces), { maxLength: 12 }), fc.integer({ min: 1, max: 5 }), async (parts, chunkSize) => {
        const body = Buffer.concat([Buffer.from('{"content":{"text":"'), Buffer.from(parts.flat()), Buffer.from('"}}')]);
        const expected = Buffer.from(JSON.parse(body.toString("utf8")).content.text, "utf8");
        expect((await largeText(body, chunkSize)).toString("hex")).toBe(expected.toString("hex"));
      }),
      { numRuns: 1000 },
    );
  });

  it("answer malformed JSON as JSON.parse does under the threshold, and with 400 request/malformed-json past it", async () => {
    for (const body of ['{"content":{"text":"a\u0001b"}}', '{"content":{"text":"a\\xb"}}', '{"content":{"text":"a\\u12G4"}}', '{"content":{"text":"abc']) {
      const ordinary = await failure(read(body, { largeValues: null }));
      expect((await failure(read(body, { largeValueThreshold: 1000 }))).message).toBe(ordinary.message);
      const large = await failure(read(body, { largeValueThreshold: 0 }));
      expect([large.code, large.status]).toEqual(["request/malformed-json", 400]);
    }
  });
});

/** A byte as JSON in one of the spellings JSON.parse reads as that integer. */
const byteSpelling = fc.integer({ min: 0, max: 255 }).chain((byte) =>
  fc.constantFrom(String(byte), `${byte}.0`, `${byte}e0`, `${byte * 10}e-1`, `${byte / 100}E2`, byte === 0 ? "-0" : String(byte), ` ${byte}\n`),
);

describe("readJsonBody: large byte arrays", () => {
  it("give the bytes for every spelling of an integer from 0 to 255", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(byteSpelling, { maxLength: 40 }), fc.integer({ min: 1, max: 9 }), async (spellings, chunkSize) => {
        const body = `{"content":{"bytes":[ ${spellings.join(",")} ]}}`;
        const { largeValues } = await read(body, {}, chunkSize);
        const expected = Buffer.from(JSON.parse(body).content.bytes as number[]);
        expect(largeValues.map((v) => v.bytes.toString("hex"))).toEqual([expected.toString("hex")]);
      }),
      { numRuns: 500 },
    );
  });

  it("hand arrays with other elements or bad syntax back to JSON.parse under the threshold", async () => {
    const arrays = ["[1,256]", "[1,-1]", "[1.5]", '[1,"2"]', "[1,[2]]", "[1,{}]", "[1,null]", "[1,true]", "[01]", "[1,]", "[,1]", "[1 2]", "[1e400]", "[1"];
    for (const array of arrays) {
      const body = `{"content":{"bytes":${array}}}`;
      const ordinary = await read(body, { largeValues: null }).then((r) => r.value, (e: ApiError) => e.message);
      const handedBack = await read(body, { largeValueThreshold: 1000 }, 3).then((r) => r.value, (e: ApiError) => e.message);
      expect(handedBack, array).toEqual(ordinary);
    }
  });

  it("past the threshold: 400 naming the element, or malformed JSON", async () => {
    const notAByte = await failure(read(`{"content":{"bytes":[1,2,3,300]}}`));
    expect([notAByte.code, notAByte.message]).toEqual(["request/validation-failed", "Invalid request: body.content.bytes.3: expected an integer from 0 to 255"]);
    expect((await failure(read(`{"content":{"bytes":[1,"x"]}}`))).message).toContain("body.content.bytes.1");
    for (const array of ["[01]", "[1,]", "[1 2]", "[1}", "[1"]) {
      expect((await failure(read(`{"content":{"bytes":${array}}}`))).code, array).toBe("request/malformed-json");
    }
  });
});

it("a fingerprint hashed while the body streams equals the idempotency fingerprint of the whole body", () => {
  const body = Buffer.from('{"name":"a"}');
  const streamed = fingerprintHash("createAsset", "?queue=true").update(body.subarray(0, 5)).update(body.subarray(5));
  expect(finishFingerprint(streamed)).toBe(fingerprint("createAsset", "?queue=true", body));
});
