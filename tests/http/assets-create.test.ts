import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { expectError, expectOk, newProject, pngBytes, waitForDecision, sha256, storedBytes, newFolder, type TestProject } from "./support";
import { PDF, HTML, BINARY, expectAssetShape, create } from "./assets-create-support";

/** Create Asset variants A (inline content forms) and C (remote URL), over HTTP against the real server. */

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
