import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { setUploadAllowance } from "@/lib/usage/allowance";
import { ApiClient, expectError, expectOk, newKey, newProject, pngBytes, MiB, sha256, newFolder, type ApiResponse, type TestProject } from "./support";
import { bigPng, create, rawUpload } from "./assets-create-support";

/** Create Asset: validation and errors (variant A, and what all uploads share), and the upload allowance. */

let p: TestProject;
let png: Buffer;

beforeAll(async () => {
  p = await newProject();
  png = await pngBytes(8, 6);
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
    const res = await p.client.sendOversized("POST", `/projects/${p.projectId}/assets`, Buffer.alloc(64 * MiB + 1, 0x20), { "Content-Type": "application/json" });
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
