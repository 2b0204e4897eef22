import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { expectError, expectOk, newProject, sha256, type TestProject } from "./support";

/**
 * JSON bodies in general (docs/api.md "Requests in general"): the nesting cap, and inline content
 * large enough (over 64 KiB) to be read aside by the streaming reader (lib/http/json-reader.ts)
 * rather than parsed. Every content form must store exactly what the small-body path stores.
 */
let p: TestProject;
beforeAll(async () => {
  p = await newProject();
});

const create = (body: unknown) => p.client.post(`/projects/${p.projectId}/assets?queue=true`, body);

describe("JSON nesting depth", () => {
  const nested = (depth: number): unknown => (depth === 0 ? 1 : { a: nested(depth - 1) });
  const lens = (options: unknown) => ({ identifier: "deep", name: "deep", type: "image", active: true, version: 1, transforms: [{ type: "x", options }] });
  const put = (body: string) => p.client.request("PUT", "/lenses/deep", { body, headers: { "Content-Type": "application/json" } });

  it("lens transforms[].options nested 3000 deep → 400 request/validation-failed naming the limit (was a 500)", async () => {
    const body = JSON.stringify(lens(0)).replace('"options":0', `"options":${'{"a":'.repeat(3000)}1${"}".repeat(3000)}`);
    const refused = expectError(await put(body), 400, "request/validation-failed");
    expect(refused.message).toContain("64 levels");
  });

  it("64 levels in all are accepted, 65 are refused", async () => {
    // The body is level 1, transforms 2, the transform 3, so options' own nesting adds up to 61 more.
    // Transform type "x" is refused by the lens schema, so reaching that refusal shows the depth passed.
    const accepted = expectError(await put(JSON.stringify(lens(nested(61)))), 400, "request/validation-failed");
    expect(accepted.message).not.toContain("64 levels");
    expect(accepted.message).toContain("supported transform types");
    const refused = expectError(await put(JSON.stringify(lens(nested(62)))), 400, "request/validation-failed");
    expect(refused.message).toContain("64 levels");
  });
});

describe("large inline content (read aside while streaming) stores exactly the bytes sent", () => {
  const binary = randomBytes(300 * 1024);
  const text = `héllo "quoted" \\ wörld 😀 \u0000\n`.repeat(8000);
  const mimeBase64 = (bytes: Buffer) => bytes.toString("base64").replace(/.{76}/g, "$&\r\n");
  const forms: [string, Record<string, unknown>, Buffer][] = [
    ["plainText with escapes and non-ASCII", { plainText: text, type: "text/plain" }, Buffer.from(text)],
    ["base64 with MIME line breaks", { base64: mimeBase64(binary), type: "application/octet-stream" }, binary],
    ["base64url", { base64: binary.toString("base64url"), type: "application/octet-stream" }, binary],
    ["uint8Array", { uint8Array: [...binary], type: "application/octet-stream" }, binary],
    ["buffer as a byte array", { buffer: [...binary], type: "application/octet-stream" }, binary],
    ["buffer as {type: Buffer, data}", { buffer: binary.toJSON(), type: "application/octet-stream" }, binary],
    ["buffer as base64", { buffer: binary.toString("base64"), type: "application/octet-stream" }, binary],
    ["data as a base64 data: URL", { data: `data:application/octet-stream;base64,${binary.toString("base64")}`, type: "application/octet-stream" }, binary],
    ["data as a percent-encoded data: URL", { data: `data:text/plain,${encodeURIComponent(text)}`, type: "text/plain" }, Buffer.from(text)],
    ["data as base64", { data: binary.toString("base64"), type: "application/octet-stream" }, binary],
    ["data as a byte array", { data: [...binary], type: "application/octet-stream" }, binary],
  ];

  it.each(forms)("content: %s", async (_, content, bytes) => {
    const asset = expectOk(await create({ name: "large", content }));
    expect([asset.sizeInBytes, asset.checksums.sha256]).toEqual([bytes.length, sha256(bytes)]);
  });

  it("a multipart upload started and continued with large JSON parts", async () => {
    const [first, second] = [binary.subarray(0, 200 * 1024), binary.subarray(200 * 1024)];
    const started = expectOk(
      await create({ name: "parts", part: { base64: first.toString("base64"), type: "application/octet-stream" }, totalSizeInBytes: binary.length }),
    );
    const done = expectOk(await p.client.post(`/assets/${started.id}/part`, { part: { uint8Array: [...second], type: "application/octet-stream", isFinal: true } }));
    expect([done.sizeInBytes, done.checksums.sha256]).toEqual([binary.length, sha256(binary)]);
  });

  it("large content that does not decode: invalid base64 → 400 upload/invalid-content, a non-byte → 400 naming the element", async () => {
    const badBase64 = expectError(await create({ name: "bad", content: { base64: `${binary.toString("base64")}*`, type: "text/plain" } }), 400, "upload/invalid-content");
    expect(badBase64.message).toContain("base64");
    const notAByte = expectError(await create({ name: "bad", content: { uint8Array: [...binary, 256], type: "text/plain" } }), 400, "request/validation-failed");
    expect(notAByte.message).toContain(`body.content.uint8Array.${binary.length}`);
  });

  it("the rest of a JSON body is limited to 4 MiB: a 5 MB description → 413 request/body-too-large", async () => {
    const res = await create({ name: "x", description: "d".repeat(5_000_000), content: { plainText: "hi", type: "text/plain" } });
    expect(expectError(res, 413, "request/body-too-large").message).toContain("raw or multipart upload");
  });
});
