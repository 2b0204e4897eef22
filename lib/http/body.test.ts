import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/core/errors";
import { forEachBodyChunk, MAX_JSON_DEPTH } from "@/lib/http/body";
import { readJsonBody } from "@/lib/http/json-reader";

/** A POST request whose body arrives in the given chunks (no Content-Length unless given). */
function streamedRequest(chunks: Uint8Array[], headers: Record<string, string> = {}) {
  let pulled = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled < chunks.length) controller.enqueue(chunks[pulled++]);
        else controller.close();
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 }, // pull only when read
  );
  const request = new Request("http://sieve.test/v1/x", { method: "POST", body, headers, duplex: "half" } as RequestInit);
  return { request, pulled: () => pulled, cancelled: () => cancelled };
}

/** The whole body as forEachBodyChunk hands it over. */
async function readBodyCapped(request: Request, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await forEachBodyChunk(request, maxBytes, (chunk) => chunks.push(Buffer.from(chunk)));
  return Buffer.concat(chunks);
}

/** A JSON body through the reader every endpoint uses (depth is capped while it streams). */
async function parseJsonBody(raw: Buffer): Promise<unknown> {
  const { request } = streamedRequest([raw]);
  return (await readJsonBody(request, { maxBytes: 1 << 30, maxStructureBytes: 1 << 30 })).value;
}

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected the promise to reject");
}

describe("forEachBodyChunk", () => {
  it("returns the whole body when it fits, including exactly at the limit", async () => {
    const { request } = streamedRequest([Buffer.from("hello "), Buffer.from("world")]);
    expect((await readBodyCapped(request, 11)).toString()).toBe("hello world");
  });

  it("returns an empty buffer for a request without a body", async () => {
    const request = new Request("http://sieve.test/v1/x", { method: "POST" });
    expect(await readBodyCapped(request, 10)).toEqual(Buffer.alloc(0));
  });

  it("refuses a declared Content-Length above the limit without reading the body", async () => {
    const { request, pulled } = streamedRequest([Buffer.alloc(5)], { "Content-Length": "101" });
    const error = await rejection(readBodyCapped(request, 100));
    expect(error.code).toBe("request/body-too-large");
    expect(error.status).toBe(413);
    expect(pulled()).toBe(0);
  });

  it("stops reading a streamed body as soon as it passes the limit and cancels the rest", async () => {
    const chunk = Buffer.alloc(40, 0x61);
    const { request, pulled, cancelled } = streamedRequest([chunk, chunk, chunk, chunk, chunk, chunk]);
    const error = await rejection(readBodyCapped(request, 100));
    expect(error.code).toBe("request/body-too-large");
    expect(error.message).toContain("100");
    expect(pulled()).toBeLessThan(6);
    expect(cancelled()).toBe(true);
  });

  it("does not trust a small Content-Length over the bytes actually sent", async () => {
    const { request } = streamedRequest([Buffer.alloc(60), Buffer.alloc(60)], { "Content-Length": "10" });
    expect((await rejection(readBodyCapped(request, 100))).code).toBe("request/body-too-large");
  });
});

describe("JSON parsing", () => {
  it("parses JSON and treats an empty body as undefined", async () => {
    expect(await parseJsonBody(Buffer.from('{"name":"a"}'))).toEqual({ name: "a" });
    expect(await parseJsonBody(Buffer.alloc(0))).toBeUndefined();
  });

  it("refuses invalid JSON with request/malformed-json", async () => {
    const error = await rejection(parseJsonBody(Buffer.from('{"name":')));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("request/malformed-json");
    expect((error as ApiError).status).toBe(400);
  });
});

describe("JSON nesting depth", () => {
  const nested = (depth: number, inner = "1") => Buffer.from("[".repeat(depth) + inner + "]".repeat(depth));
  const depthError = (raw: Buffer) => parseJsonBody(raw).then(() => null, (error: unknown) => error as ApiError);

  it(`accepts ${MAX_JSON_DEPTH} levels of objects and arrays and refuses ${MAX_JSON_DEPTH + 1} with 400 naming the limit`, async () => {
    expect(await parseJsonBody(nested(MAX_JSON_DEPTH))).toBeDefined();
    const objects = (depth: number) => Buffer.from('{"a":'.repeat(depth - 1) + "{}" + "}".repeat(depth - 1));
    expect(await parseJsonBody(objects(MAX_JSON_DEPTH))).toBeDefined();
    for (const raw of [nested(MAX_JSON_DEPTH + 1), objects(MAX_JSON_DEPTH + 1), Buffer.from('{"a":' + nested(MAX_JSON_DEPTH).toString() + "}")]) {
      const error = await depthError(raw);
      expect(error?.code).toBe("request/validation-failed");
      expect(error?.status).toBe(400);
      expect(error?.message).toContain(`${MAX_JSON_DEPTH} levels`);
    }
  });

  it("ignores brackets inside strings, escaped quotes included", async () => {
    // Brackets after an escaped quote, a string ending in an escaped backslash, brackets in keys.
    const strings = ["[".repeat(200), 'say \\"[[[{{{" ok', "\\", '"[{', { "[[[": "{{{" }];
    const raw = Buffer.from("[".repeat(MAX_JSON_DEPTH - 2) + JSON.stringify(strings) + "]".repeat(MAX_JSON_DEPTH - 2));
    expect(await depthError(raw)).toBeNull();
    let value = (await parseJsonBody(raw)) as unknown[];
    for (let level = 2; level < MAX_JSON_DEPTH; level++) value = value[0] as unknown[];
    expect(value).toEqual(strings);
  });

  it("refuses 100 000 levels quickly, without a stack overflow", async () => {
    const started = performance.now();
    expect((await depthError(nested(100_000)))?.code).toBe("request/validation-failed");
    expect((await depthError(Buffer.from('{"a":'.repeat(100_000))))?.code).toBe("request/validation-failed");
    expect(performance.now() - started).toBeLessThan(500);
  });
});
