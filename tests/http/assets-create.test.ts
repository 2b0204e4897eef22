import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { db } from "@/lib/db/client";
import { setUploadAllowance } from "@/lib/usage/allowance";
import { ApiClient, expectError, newKey, newProject, pngBytes, waitForDecision, type ApiResponse, type TestProject, expectOk } from "./support";

/** Create Asset (variants A and C) and the raw-bytes upload, over HTTP against the real server. */

const MiB = 1024 * 1024;

/** Every field of the spec's Asset table; the API always sends all of them (null when unset). */
const ASSET_FIELDS = [
  "id", "projectId", "sizeInBytes", "userId", "parentId", "folderId", "createdAt", "updatedAt", "checksums",
  "imageData", "documentData", "name", "fileFormat", "fileExtension", "description", "externalId", "externalUrl",
  "previewImage", "storageId", "uploadPartsReceived", "type", "metadata", "tags", "report", "moderationAction",
  "status", "safetyHold", "rejectionNote", "extractedText", "processingOptions", "visibility", "storageDeletedAt",
];

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

const PDF = Buffer.from("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n", "latin1");
const HTML = Buffer.from("<!doctype html><html><head><title>t</title></head><body><p>Hello</p></body></html>", "utf8");
/** Bytes no magic-number table knows and that are not text. */
const BINARY = Buffer.from([0x13, 0x37, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x42, 0x01, 0x02, 0x99, 0x00, 0x7f]);

/** A real PNG header (so type detection and sharp see an image) padded with filler to `size` bytes. */
async function bigPng(size: number): Promise<Buffer> {
  const png = await pngBytes(16, 12);
  return Buffer.concat([png, Buffer.alloc(size - png.length, 0x5a)]);
}

/** The bytes stored under a storageId (filesystem storage of the test server). */
function storedBytes(storageId: string): Promise<Buffer> {
  return readFile(path.join(inject("dataDir"), "storage", ...storageId.split("/")));
}

function expectAssetShape(body: Record<string, unknown>) {
  expect(Object.keys(body).sort()).toEqual([...ASSET_FIELDS].sort());
}

function create(p: TestProject, body: unknown, options: { queue?: string; headers?: Record<string, string> } = {}) {
  const query = options.queue === undefined ? "" : `?queue=${options.queue}`;
  return p.client.post(`/projects/${p.projectId}/assets${query}`, body, options.headers);
}

function rawUpload(
  p: TestProject,
  bytes: Buffer,
  options: { query?: Record<string, string>; headers?: Record<string, string>; client?: ApiClient } = {},
) {
  const query = new URLSearchParams(options.query ?? {}).toString();
  return (options.client ?? p.client).request("POST", `/projects/${p.projectId}/assets/upload${query ? `?${query}` : ""}`, {
    body: bytes,
    headers: options.headers ?? { "X-Service-Upload": "content", "Content-Type": "image/png" },
  });
}

async function newFolder(p: TestProject, name: string): Promise<string> {
  const res = await p.client.post(`/projects/${p.projectId}/folders`, { name });
  return expectOk(res).id as string;
}

let p: TestProject;
let png: Buffer;

beforeAll(async () => {
  p = await newProject();
  png = await pngBytes(8, 6);
});

describe("variant A: inline content forms", () => {
  it("plainText: text becomes an (approved) plaintext-document with real size and sha256, stored as sent", async () => {
    const text = "Hello, Sieve. Grüße ✓";
    const bytes = Buffer.from(text, "utf8");
    const before = Date.now();
    const asset = expectOk(
      await create(p, {
        name: "hello.txt",
        processingOptions: { keepContentAfterProcessing: true },
        content: { plainText: text, type: "text/plain" },
      }),
    );
    expectAssetShape(asset);
    // queue=false (the default): a text upload comes back decided; benign text is approved.
    expect(asset).toMatchObject({
      projectId: p.projectId,
      name: "hello.txt",
      type: "plaintext-document",
      fileFormat: "text/plain",
      fileExtension: "txt",
      sizeInBytes: bytes.length,
      status: "approved",
      parentId: null,
      folderId: null,
      imageData: null,
      storageDeletedAt: null,
      safetyHold: null,
      moderationAction: null,
      report: expect.objectContaining({ flagged: false }),
    });
    expect(asset.checksums.sha256).toBe(sha256(bytes));
    expect(asset.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof asset.storageId).toBe("string");
    expect(await storedBytes(asset.storageId)).toEqual(bytes);
    expect(asset.createdAt).toBeGreaterThanOrEqual(before - 5_000);
    expect(Number.isInteger(asset.createdAt)).toBe(true);

    const fetched = expectOk(await p.client.get(`/assets/${asset.id}`));
    expect(fetched).toEqual(asset);
  });

  it("base64: a PNG declared as image/jpeg is stored as image/png with imageData from its real pixels", async () => {
    const image = await pngBytes(7, 5);
    const asset = expectOk(await create(p, { name: "photo.jpg", content: { base64: image.toString("base64"), type: "image/jpeg" } }));
    expectAssetShape(asset);
    expect(asset).toMatchObject({ type: "image", fileFormat: "image/png", fileExtension: "png", sizeInBytes: image.length });
    expect(asset.imageData).toMatchObject({ width: 7, height: 5 });
    expect(asset.checksums.sha256).toBe(sha256(image));
  });

  it("uint8Array: PDF bytes become a multimedia-document whatever type is declared", async () => {
    const asset = expectOk(await create(p, { name: "doc", content: { uint8Array: [...PDF], type: "application/octet-stream" } }));
    expect(asset).toMatchObject({ type: "multimedia-document", fileFormat: "application/pdf", sizeInBytes: PDF.length });
    expect(asset.checksums.sha256).toBe(sha256(PDF));
  });

  it("buffer as an integer array: unknown binary becomes a file", async () => {
    const asset = expectOk(await create(p, { name: "blob", content: { buffer: [...BINARY], type: "application/octet-stream" } }));
    expect(asset).toMatchObject({ type: "file", fileFormat: "application/octet-stream", sizeInBytes: BINARY.length });
    expect(asset.checksums.sha256).toBe(sha256(BINARY));
  });

  it("buffer in Node's {type: 'Buffer', data} form; binary declared as text is not text", async () => {
    const asset = expectOk(await create(p, { name: "blob2", content: { buffer: BINARY.toJSON(), type: "text/plain" } }));
    expect(asset).toMatchObject({ type: "file", fileFormat: "application/octet-stream", sizeInBytes: BINARY.length });
    expect(asset.checksums.sha256).toBe(sha256(BINARY));
  });

  it("buffer as base64 text", async () => {
    const asset = expectOk(await create(p, { name: "img", content: { buffer: png.toString("base64"), type: "image/png" } }));
    expect(asset).toMatchObject({ type: "image", fileFormat: "image/png", sizeInBytes: png.length });
    expect(asset.imageData).toMatchObject({ width: 8, height: 6 });
    expect(asset.checksums.sha256).toBe(sha256(png));
  });

  it("data as a data: URL: HTML becomes a website", async () => {
    const dataUrl = `data:text/html;base64,${HTML.toString("base64")}`;
    const asset = expectOk(await create(p, { name: "page", content: { data: dataUrl, type: "text/plain" } }));
    expect(asset).toMatchObject({ type: "website", fileFormat: "text/html", sizeInBytes: HTML.length });
    expect(asset.checksums.sha256).toBe(sha256(HTML));
  });

  it("data as a percent-encoded (non-base64) data: URL", async () => {
    const text = "a, b & c";
    const asset = expectOk(await create(p, { name: "t", content: { data: `data:text/plain,${encodeURIComponent(text)}`, type: "text/plain" } }));
    expect(asset).toMatchObject({ type: "plaintext-document", sizeInBytes: Buffer.byteLength(text) });
    expect(asset.checksums.sha256).toBe(sha256(Buffer.from(text)));
  });

  it("data as base64 text and as an integer array", async () => {
    const fromBase64 = expectOk(await create(p, { name: "d1", content: { data: PDF.toString("base64"), type: "application/pdf" } }));
    expect(fromBase64).toMatchObject({ type: "multimedia-document", sizeInBytes: PDF.length });
    expect(fromBase64.checksums.sha256).toBe(sha256(PDF));

    const fromArray = expectOk(await create(p, { name: "d2", content: { data: [...png], type: "image/png" } }));
    expect(fromArray).toMatchObject({ type: "image", fileFormat: "image/png", sizeInBytes: png.length });
    expect(fromArray.checksums.sha256).toBe(sha256(png));
  });

  it("HTML sent as plainText is a website", async () => {
    const asset = expectOk(await create(p, { name: "p.html", content: { plainText: HTML.toString("utf8"), type: "text/plain" } }));
    expect(asset).toMatchObject({ type: "website", fileFormat: "text/html" });
  });

  it("keeps the optional fields and processingOptions as sent", async () => {
    const folderId = await newFolder(p, "inline-target");
    const processingOptions = { keepContentAfterProcessing: true, flaggedContentPolicy: { action: "hide" }, image: { ocrEnabled: false } };
    const asset = expectOk(
      await create(p, {
        name: "full",
        description: "a description",
        visibility: "private",
        metadata: [{ id: "source", value: "camera" }, { id: "n", value: 3 }, { id: "b", value: true }, { id: "z", value: null }],
        externalId: "ext-full-1",
        externalUrl: "https://example.com/full",
        folderId,
        processingOptions,
        content: { plainText: "x", type: "text/plain" },
      }),
    );
    expect(asset).toMatchObject({
      description: "a description",
      visibility: "private",
      metadata: [{ id: "source", value: "camera" }, { id: "n", value: 3 }, { id: "b", value: true }, { id: "z", value: null }],
      externalId: "ext-full-1",
      externalUrl: "https://example.com/full",
      folderId,
      processingOptions,
    });
    expect(expectOk(await p.client.get(`/assets/${asset.id}`)).processingOptions).toEqual(processingOptions);

    const none = expectOk(await create(p, { name: "bare", processingOptions: null, content: { plainText: "x", type: "text/plain" } }));
    expect(none).toMatchObject({ processingOptions: null, description: null, visibility: null, metadata: null, externalId: null });
  });

  it("queue=true returns a pending asset decided later; queue=false (and no queue) waits for the decision; queue is remembered", async () => {
    for (const queue of ["true", "false", "1", "0", undefined]) {
      const asset = expectOk(await create(p, { name: `q-${queue}`, content: { plainText: "queued?", type: "text/plain" } }, { queue }));
      const queued = queue === "true" || queue === "1";
      expect(asset.status, `queue=${queue}`).toBe(queued ? "pending" : "approved");
      const row = await db().asset.findUniqueOrThrow({ where: { id: asset.id }, select: { queued: true } });
      expect(row.queued).toBe(queued);
      if (queued) expect((await waitForDecision(p.client, asset.id)).status).toBe("approved");
    }
    expectError(await create(p, { name: "q", content: { plainText: "x", type: "text/plain" } }, { queue: "yes" }), 400, "request/validation-failed");
  });

  it("every upload writes one asset.uploaded event with asset-name, asset-type and file-format", async () => {
    const asset = expectOk(await create(p, { name: "evented.png", content: { base64: png.toString("base64"), type: "image/jpeg" } }));
    expect(asset.status).toBe("approved");
    // The upload's one event comes first; processing adds asset.classified (decided before the response).
    const events = await db().event.findMany({ where: { projectId: p.projectId, assetId: asset.id }, orderBy: { seq: "asc" } });
    expect(events.map((e) => e.type)).toEqual(["asset.uploaded", "asset.classified"]);
    expect(events[0]).toMatchObject({ type: "asset.uploaded", severity: "low" });
    expect(events[0]!.facts).toEqual([
      { key: "asset-name", value: "evented.png" },
      { key: "asset-type", value: "image" },
      { key: "file-format", value: "image/png" },
    ]);
    expect(events[0]!.asset).toMatchObject({ id: asset.id, status: "pending" });
  });
});

describe("variant A: validation and errors", () => {
  const text = { plainText: "x", type: "text/plain" };
  const invalid: [string, unknown][] = [
    ["unknown top-level field", { name: "a", content: text, colour: "red" }],
    ["top-level isFinal", { name: "a", content: text, isFinal: true }],
    ["unknown processingOptions field", { name: "a", content: text, processingOptions: { speed: "fast" } }],
    ["unknown processingOptions.image field", { name: "a", content: text, processingOptions: { image: { ocr: true } } }],
    ["flaggedContentPolicy without action", { name: "a", content: text, processingOptions: { flaggedContentPolicy: {} } }],
    ["two content forms", { name: "a", content: { plainText: "x", base64: "eA==", type: "text/plain" } }],
    ["content without any form", { name: "a", content: { type: "text/plain" } }],
    ["no content, part or url", { name: "a" }],
    ["content and url together", { name: "a", content: text, url: "https://example.com/x" }],
    ["sizeInBytes without part", { name: "a", content: text, sizeInBytes: 1 }],
    ["byte 256", { name: "a", content: { uint8Array: [1, 256], type: "application/octet-stream" } }],
    ["negative byte", { name: "a", content: { buffer: [-1], type: "application/octet-stream" } }],
    ["non-integer byte", { name: "a", content: { data: [1.5], type: "application/octet-stream" } }],
    ["Buffer form with a wrong type tag", { name: "a", content: { buffer: { type: "Blob", data: [1] }, type: "application/octet-stream" } }],
    ["missing type", { name: "a", content: { plainText: "x" } }],
    ["empty type", { name: "a", content: { plainText: "x", type: "" } }],
    ["unknown content field", { name: "a", content: { plainText: "x", type: "text/plain", encoding: "utf8" } }],
    ["missing name", { content: text }],
    ["empty name", { name: "", content: text }],
    ["name over 255 characters", { name: "n".repeat(256), content: text }],
    ["metadata item without value", { name: "a", content: text, metadata: [{ id: "k" }] }],
    ["metadata item without id", { name: "a", content: text, metadata: [{ value: "v" }] }],
    ["metadata item with an unknown field", { name: "a", content: text, metadata: [{ id: "k", value: 1, extra: 2 }] }],
    ["bad folderId UUID", { name: "a", content: text, folderId: "not-a-uuid" }],
    ["visibility outside the enum", { name: "a", content: text, visibility: "secret" }],
    ["externalId with a slash", { name: "a", content: text, externalId: "a/b" }],
    ["externalUrl that is not a URL", { name: "a", content: text, externalUrl: "not a url" }],
    ["body that is an array", [{ name: "a", content: text }]],
  ];
  it.each(invalid)("%s → 400 request/validation-failed", async (_label, body) => {
    expectError(await create(p, body), 400, "request/validation-failed");
  });

  it("an empty body is a validation failure and broken JSON is malformed-json", async () => {
    const empty = await p.client.request("POST", `/projects/${p.projectId}/assets`, { headers: { "Content-Type": "application/json" } });
    expectError(empty, 400, "request/validation-failed");
    const broken = await p.client.request("POST", `/projects/${p.projectId}/assets`, {
      body: '{"name": "a", "content": ',
      headers: { "Content-Type": "application/json" },
    });
    expectError(broken, 400, "request/malformed-json");
  });

  it("a JSON body over SIEVE_MAX_JSON_BODY_BYTES (64 MiB) → 413 request/body-too-large", async () => {
    const res = await p.client.request("POST", `/projects/${p.projectId}/assets`, {
      body: Buffer.alloc(64 * MiB + 1, 0x20),
      headers: { "Content-Type": "application/json" },
    });
    expectError(res, 413, "request/body-too-large");
  });

  it("the validation message names the offending field", async () => {
    const res = await create(p, { name: "a", content: text, colour: "red" });
    expect(expectError(res, 400, "request/validation-failed").message).toContain("colour");
  });

  it("undecodable base64 and data: URLs → 400 upload/invalid-content", async () => {
    expectError(await create(p, { name: "a", content: { base64: "not base64!!", type: "image/png" } }), 400, "upload/invalid-content");
    expectError(await create(p, { name: "a", content: { buffer: "@@@@", type: "image/png" } }), 400, "upload/invalid-content");
    expectError(await create(p, { name: "a", content: { data: "data:image/png;base64,%%%", type: "image/png" } }), 400, "upload/invalid-content");
    expectError(await create(p, { name: "a", content: { data: "data:nonsense", type: "image/png" } }), 400, "upload/invalid-content");
  });

  it("empty content in every form → 400 upload/empty-content, and nothing is created", async () => {
    const before = await db().asset.count({ where: { projectId: p.projectId } });
    for (const content of [{ plainText: "" }, { base64: "" }, { uint8Array: [] }, { buffer: [] }, { data: "data:text/plain," }]) {
      expectError(await create(p, { name: "empty", content: { ...content, type: "text/plain" } }), 400, "upload/empty-content");
    }
    expect(await db().asset.count({ where: { projectId: p.projectId } })).toBe(before);
  });

  it("folderId of no folder, or of another project's folder → 404 folder/not-found", async () => {
    expectError(
      await create(p, { name: "a", content: text, folderId: "00000000-0000-4000-8000-000000000000" }),
      404,
      "folder/not-found",
    );
    const other = await newProject();
    const foreignFolder = await newFolder(other, "theirs");
    expectError(await create(p, { name: "a", content: text, folderId: foreignFolder }), 404, "folder/not-found");
  });

  it("a duplicate externalId → 409 asset/duplicate-external-id; other projects may reuse it", async () => {
    expectOk(await create(p, { name: "a", content: text, externalId: "dup-1" }));
    expectError(await create(p, { name: "b", content: text, externalId: "dup-1" }), 409, "asset/duplicate-external-id");
    expectError(
      await rawUpload(p, png, { query: { externalId: "dup-1" } }),
      409,
      "asset/duplicate-external-id",
    );
    const other = await newProject();
    expectOk(await create(other, { name: "a", content: text, externalId: "dup-1" }));
  });

  it("an inline image of 10 MiB or more → 413 upload/image-requires-multipart; over 20 MiB → 413 upload/too-large", async () => {
    const tenMiB = await bigPng(10 * MiB);
    expectError(
      await create(p, { name: "big.png", content: { base64: tenMiB.toString("base64"), type: "image/png" } }),
      413,
      "upload/image-requires-multipart",
    );
    const huge = await bigPng(20 * MiB + 1);
    expectError(
      await create(p, { name: "huge.png", content: { base64: huge.toString("base64"), type: "image/png" } }),
      413,
      "upload/too-large",
    );
  });

  it("an image of 10 MiB minus one byte is accepted directly; the same bytes plus one are refused", async () => {
    const justUnder = await bigPng(10 * MiB - 1);
    const asset = expectOk(await rawUpload(p, justUnder, { query: { name: "just-under.png" } }));
    expect(asset).toMatchObject({ type: "image", sizeInBytes: 10 * MiB - 1 });
    expect(asset.checksums.sha256).toBe(sha256(justUnder));
    expectError(await rawUpload(p, await bigPng(10 * MiB)), 413, "upload/image-requires-multipart");
  });

  it("a raw image over 20 MiB → 413 upload/too-large (not a hint to use multipart)", async () => {
    expectError(await rawUpload(p, await bigPng(20 * MiB + 1)), 413, "upload/too-large");
  });

  it("authentication, project access and permission errors", async () => {
    const body = { name: "a", content: text };
    const anonymous = new ApiClient(null);
    expectError(await anonymous.post(`/projects/${p.projectId}/assets`, body), 401, "auth/missing-token");
    expectError(await new ApiClient("sieve_not-a-real-key").post(`/projects/${p.projectId}/assets`, body), 401, "auth/invalid-api-key");
    const other = await newProject();
    expectError(await other.client.post(`/projects/${p.projectId}/assets`, body), 403, "auth/project-mismatch");
    expectError(await p.client.post(`/projects/00000000-0000-4000-8000-000000000000/assets`, body), 404, "project/not-found");
    expectError(await p.client.post(`/projects/not-a-uuid/assets`, body), 404, "project/not-found");
    const readOnly = await newKey(p.projectId, ["assets:read"]);
    expectError(await readOnly.client.post(`/projects/${p.projectId}/assets`, body), 403, "auth/insufficient-permissions");
    expectError(await rawUpload(p, png, { client: readOnly.client }), 403, "auth/insufficient-permissions");
  });

  it("a key over its rate limit → 429 rate-limit/exceeded with Retry-After", async () => {
    const slow = await newKey(p.projectId, ["assets:write"], { rateLimitPerSecond: 1 });
    const responses: ApiResponse[] = [];
    for (let i = 0; i < 3; i++) responses.push(await slow.client.post(`/projects/${p.projectId}/assets`, { name: "r", content: text }));
    const limited = responses.find((r) => r.status === 429);
    expect(limited, responses.map((r) => r.status).join(",")).toBeDefined();
    expectError(limited!, 429, "rate-limit/exceeded");
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });
});

describe("idempotency", () => {
  it("Create Asset: a retry replays the first response; another body with the key → 422", async () => {
    const body = { name: "idem", content: { plainText: "once", type: "text/plain" } };
    const first = await create(p, body, { headers: { "Idempotency-Key": "create-key-1" } });
    const asset = expectOk(first);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await create(p, body, { headers: { "Idempotency-Key": "create-key-1" } });
    expect(expectOk(again).id).toBe(asset.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    expect(await db().asset.count({ where: { projectId: p.projectId, name: "idem" } })).toBe(1);

    const changed = await create(p, { ...body, name: "idem-2" }, { headers: { "Idempotency-Key": "create-key-1" } });
    expectError(changed, 422, "idempotency/key-reused");
    expectError(await create(p, body, { headers: { "Idempotency-Key": "has space" } }), 400, "idempotency/invalid-key");
  });

  it("a stored error is replayed with its first traceId", async () => {
    expectOk(await create(p, { name: "e1", content: { plainText: "x", type: "text/plain" }, externalId: "idem-dup" }));
    const body = { name: "e2", content: { plainText: "y", type: "text/plain" }, externalId: "idem-dup" };
    const first = await create(p, body, { headers: { "Idempotency-Key": "err-key" } });
    const firstError = expectError(first, 409, "asset/duplicate-external-id");
    const replay = await create(p, body, { headers: { "Idempotency-Key": "err-key" } });
    expect(replay.status).toBe(409);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(firstError);
  });

  it("raw upload: the same bytes replay the same asset; different bytes with the key → 422", async () => {
    const headers = { "X-Service-Upload": "content", "Content-Type": "image/png", "Idempotency-Key": "raw-key-1" };
    const first = await rawUpload(p, png, { query: { name: "raw-idem" }, headers });
    const asset = expectOk(first);
    const replay = await rawUpload(p, png, { query: { name: "raw-idem" }, headers });
    expect(expectOk(replay).id).toBe(asset.id);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await db().asset.count({ where: { projectId: p.projectId, name: "raw-idem" } })).toBe(1);

    const otherBytes = await pngBytes(9, 9);
    expectError(await rawUpload(p, otherBytes, { query: { name: "raw-idem" }, headers }), 422, "idempotency/key-reused");
    expectError(await rawUpload(p, png, { query: { name: "raw-idem-2" }, headers }), 422, "idempotency/key-reused");
  });

  it("raw upload: a retry while the first request still streams → 409 idempotency/request-in-progress", async () => {
    const key = "raw-slow-key";
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slowBody = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(png.subarray(0, 16));
        await gate;
        controller.enqueue(png.subarray(16));
        controller.close();
      },
    });
    const headers = { "X-Api-Key": p.apiKey, "X-Service-Upload": "content", "Content-Type": "image/png", "Idempotency-Key": key };
    const url = `${(await import("./support")).baseUrl}/v1/projects/${p.projectId}/assets/upload?name=slow`;
    const firstRequest = fetch(url, { method: "POST", headers, body: slowBody, duplex: "half" } as RequestInit);
    try {
      const deadline = Date.now() + 10_000;
      while (!(await db().idempotencyRecord.findFirst({ where: { key } }))) {
        if (Date.now() > deadline) throw new Error("the first request never claimed its key");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expectError(await rawUpload(p, png, { query: { name: "slow" }, headers }), 409, "idempotency/request-in-progress");
    } finally {
      release();
    }
    const first = await firstRequest;
    expect(first.status).toBe(200);
    const asset = (await first.json()) as { id: string; checksums: { sha256: string } };
    expect(asset.checksums.sha256).toBe(sha256(png));
    const replay = await rawUpload(p, png, { query: { name: "slow" }, headers });
    expect(expectOk(replay).id).toBe(asset.id);
  });
});

describe("raw-bytes upload", () => {
  it("stores the bytes with type detection, query fields and processing options", async () => {
    const folderId = await newFolder(p, "raw-target");
    const res = await rawUpload(p, png, {
      query: {
        name: "raw.png",
        queue: "true",
        folderId,
        externalId: "raw-ext-1",
        externalUrl: "https://example.com/raw",
        visibility: "public",
        description: "raw bytes",
        keepContentAfterProcessing: "true",
        flaggedContentPolicy: "purge",
        ocrEnabled: "1",
      },
      headers: { "X-Service-Upload": "content", "Content-Type": "image/jpeg" },
    });
    const asset = expectOk(res);
    expectAssetShape(asset);
    expect(asset).toMatchObject({
      name: "raw.png",
      status: "pending",
      type: "image",
      fileFormat: "image/png",
      sizeInBytes: png.length,
      folderId,
      externalId: "raw-ext-1",
      externalUrl: "https://example.com/raw",
      visibility: "public",
      description: "raw bytes",
      processingOptions: { keepContentAfterProcessing: true, flaggedContentPolicy: { action: "purge" }, image: { ocrEnabled: true } },
    });
    expect(asset.imageData).toMatchObject({ width: 8, height: 6 });
    expect(asset.checksums.sha256).toBe(sha256(png));
    const row = await db().asset.findUniqueOrThrow({ where: { id: asset.id }, select: { queued: true } });
    expect(row.queued).toBe(true);
  });

  it("name comes from the query, then Content-Disposition, then defaults to 'upload'", async () => {
    const headers = { "X-Service-Upload": "content", "Content-Type": "text/plain" };
    const text = Buffer.from("some text");
    const fromQuery = expectOk(
      await rawUpload(p, text, { query: { name: "query-name" }, headers: { ...headers, "Content-Disposition": 'attachment; filename="cd.txt"' } }),
    );
    expect(fromQuery.name).toBe("query-name");
    const fromHeader = expectOk(await rawUpload(p, text, { headers: { ...headers, "Content-Disposition": 'attachment; filename="report 1.txt"' } }));
    expect(fromHeader).toMatchObject({ name: "report 1.txt", type: "plaintext-document", processingOptions: null });
    const extended = expectOk(
      await rawUpload(p, text, { headers: { ...headers, "Content-Disposition": "attachment; filename*=UTF-8''gr%C3%BC%C3%9Fe.txt" } }),
    );
    expect(extended.name).toBe("grüße.txt");
    const fallback = expectOk(await rawUpload(p, text, { headers }));
    expect(fallback.name).toBe("upload");
  });

  it("without X-Service-Upload: content, or without Content-Type → 400 upload/missing-header", async () => {
    expectError(await rawUpload(p, png, { headers: { "Content-Type": "image/png" } }), 400, "upload/missing-header");
    expectError(await rawUpload(p, png, { headers: { "X-Service-Upload": "part", "Content-Type": "image/png" } }), 400, "upload/missing-header");
    expectError(await rawUpload(p, png, { headers: { "X-Service-Upload": "content" } }), 400, "upload/missing-header");
  });

  it("query validation, empty bodies and unknown folders", async () => {
    expectError(await rawUpload(p, png, { query: { colour: "red" } }), 400, "request/validation-failed");
    expectError(await rawUpload(p, png, { query: { folderId: "nope" } }), 400, "request/validation-failed");
    expectError(await rawUpload(p, png, { query: { visibility: "hidden" } }), 400, "request/validation-failed");
    expectError(await rawUpload(p, png, { query: { flaggedContentPolicy: "delete" } }), 400, "request/validation-failed");
    expectError(await rawUpload(p, png, { query: { queue: "maybe" } }), 400, "request/validation-failed");
    expectError(
      await rawUpload(p, png, { query: { folderId: "00000000-0000-4000-8000-000000000000" } }),
      404,
      "folder/not-found",
    );
    expectError(await rawUpload(p, Buffer.alloc(0)), 400, "upload/empty-content");
  });

  it("authentication and project errors", async () => {
    expectError(await rawUpload({ ...p, projectId: "00000000-0000-4000-8000-000000000000" }, png), 404, "project/not-found");
    expectError(await rawUpload(p, png, { client: new ApiClient(null) }), 401, "auth/missing-token");
    expectError(await rawUpload(p, png, { client: new ApiClient("sieve_nope") }), 401, "auth/invalid-api-key");
    const other = await newProject();
    expectError(await rawUpload(p, png, { client: other.client }), 403, "auth/project-mismatch");
  });
});

describe("variant C: remote URL", () => {
  let server: http.Server;
  let localUrl: string;
  let hits = 0;

  beforeAll(async () => {
    server = http.createServer((_req, res) => {
      hits++;
      res.writeHead(200, { "Content-Type": "image/png" }).end(png);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    localUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/image.png`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("a URL to a local server is refused with 422 asset/url-not-allowed, and nothing is fetched", async () => {
    expectError(await create(p, { name: "local", url: localUrl }), 422, "asset/url-not-allowed");
    const port = new URL(localUrl).port;
    for (const url of [`http://localhost:${port}/image.png`, `http://[::1]:${port}/x`, "http://10.0.0.1/x", "http://169.254.169.254/latest/meta-data"]) {
      expectError(await create(p, { name: "private", url }), 422, "asset/url-not-allowed");
    }
    expect(hits).toBe(0);
  });

  it("non-http schemes and URLs with credentials → 422 asset/url-not-allowed; a non-URL → 400", async () => {
    for (const url of ["ftp://example.com/file.png", "file:///etc/passwd", "https://user:secret@example.com/a.png"]) {
      expectError(await create(p, { name: "scheme", url }), 422, "asset/url-not-allowed");
    }
    expectError(await create(p, { name: "bad", url: "not a url" }), 400, "request/validation-failed");
  });

  it("a host that cannot be resolved → 422 asset/url-fetch-failed", async () => {
    expectError(await create(p, { name: "gone", url: "http://no-such-host.invalid/a.png" }), 422, "asset/url-fetch-failed");
  });

  it("request checks come before the fetch: unknown folder → 404", async () => {
    expectError(
      await create(p, { name: "r", url: localUrl, folderId: "00000000-0000-4000-8000-000000000000" }),
      404,
      "folder/not-found",
    );
    expect(hits).toBe(0);
  });
});

describe("upload allowance", () => {
  it("blocks every kind of upload with 402 once used up, and emits usage.limit-reached exactly once", async () => {
    const q = await newProject();
    await setUploadAllowance(q.ownerUserId, 2);
    const text = { plainText: "x", type: "text/plain" };
    expectOk(await create(q, { name: "one", content: text }));
    expectOk(await rawUpload(q, png, { query: { name: "two" } }));

    expectError(await create(q, { name: "three", content: text }), 402, "upload/allowance-exhausted");
    expectError(await rawUpload(q, png), 402, "upload/allowance-exhausted");
    expectError(await create(q, { name: "mp", part: { ...text, partNumber: 1 } }), 402, "upload/allowance-exhausted");
    expectError(
      await q.client.request("POST", `/projects/${q.projectId}/assets/multipart-upload`, {
        body: png,
        headers: { "X-Service-Upload": "part", "Content-Type": "image/png" },
      }),
      402,
      "upload/allowance-exhausted",
    );
    expectError(await create(q, { name: "remote", url: "https://example.com/a.png" }), 402, "upload/allowance-exhausted");
    expectError(await create(q, { name: "four", content: text }), 402, "upload/allowance-exhausted");

    const limitEvents = await db().event.findMany({ where: { projectId: q.projectId, type: "usage.limit-reached" } });
    expect(limitEvents).toHaveLength(1);
    expect(limitEvents[0]).toMatchObject({ severity: "high" });
    expect(limitEvents[0]!.facts).toEqual([
      { key: "limit", value: 2 },
      { key: "used", value: 2 },
      { key: "owner-user-id", value: q.ownerUserId },
    ]);
    expect(await db().asset.count({ where: { projectId: q.projectId } })).toBe(2);
    expect(await db().event.count({ where: { projectId: q.projectId, type: "asset.uploaded" } })).toBe(2);

    // Raising the allowance unblocks uploads again.
    await setUploadAllowance(q.ownerUserId, 3);
    expectOk(await create(q, { name: "five", content: text }));
    expectError(await create(q, { name: "six", content: text }), 402, "upload/allowance-exhausted");
  });

  it("a lowered allowance blocks the next upload and still emits the event once", async () => {
    const q = await newProject();
    expectOk(await create(q, { name: "one", content: { plainText: "x", type: "text/plain" } }));
    await setUploadAllowance(q.ownerUserId, 1);
    for (let i = 0; i < 2; i++) {
      expectError(await create(q, { name: "two", content: { plainText: "x", type: "text/plain" } }), 402, "upload/allowance-exhausted");
    }
    expect(await db().event.count({ where: { projectId: q.projectId, type: "usage.limit-reached" } })).toBe(1);
  });
});
