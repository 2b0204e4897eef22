import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { ApiClient, expectError, expectOk, newProject, pngBytes, sha256, newFolder, type TestProject } from "./support";
import { expectAssetShape, rawUpload } from "./assets-create-support";

/** The raw-bytes upload (POST /projects/:id/assets/upload), over HTTP against the real server. */

let p: TestProject;
let png: Buffer;

beforeAll(async () => {
  p = await newProject();
  png = await pngBytes(8, 6);
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
