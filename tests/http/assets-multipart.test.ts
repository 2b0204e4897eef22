import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { db } from "@/lib/db/client";
import { setUploadAllowance } from "@/lib/usage/allowance";
import { ApiClient, expectError, newKey, newProject, pngBytes, waitForDecision, type TestProject, expectOk } from "./support";

/**
 * Multipart uploads: variant B of Create Asset, the raw start endpoint and POST /assets/:id/part.
 * When the final part arrives the upload is processed like any other: with queue=false (the
 * default) text and images come back decided (benign content: `approved`).
 */

const MiB = 1024 * 1024;
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");
const b64 = (bytes: Buffer) => bytes.toString("base64");

/** A real PNG header (type detection and sharp see an image) padded with filler to `size` bytes. */
async function bigPng(size: number): Promise<Buffer> {
  const png = await pngBytes(20, 10);
  return Buffer.concat([png, Buffer.alloc(size - png.length, 0x33)]);
}

/** Variant B: JSON start with the first part. */
function startJson(
  p: TestProject,
  first: Buffer,
  extra: {
    type?: string;
    partNumber?: number;
    isFinal?: boolean;
    totalSizeInBytes?: number;
    sizeInBytes?: number;
    name?: string;
    folderId?: string;
    externalId?: string;
    processingOptions?: Record<string, unknown>;
  } = {},
  queue?: string,
) {
  const { type = "image/png", partNumber, isFinal, name = "multi.png", ...top } = extra;
  return p.client.post(`/projects/${p.projectId}/assets${queue === undefined ? "" : `?queue=${queue}`}`, {
    name,
    part: { base64: b64(first), type, ...(partNumber !== undefined && { partNumber }), ...(isFinal !== undefined && { isFinal }) },
    ...top,
  });
}

/** Raw start: POST /projects/:id/assets/multipart-upload with the bytes of part 1. */
function startRaw(
  p: TestProject,
  first: Buffer,
  query: Record<string, string> = {},
  headers: Record<string, string> = { "X-Service-Upload": "part", "Content-Type": "image/png" },
) {
  const qs = new URLSearchParams(query).toString();
  return p.client.request("POST", `/projects/${p.projectId}/assets/multipart-upload${qs ? `?${qs}` : ""}`, { body: first, headers });
}

function partJson(client: ApiClient, assetId: string, bytes: Buffer, partNumber?: number, isFinal?: boolean, headers?: Record<string, string>) {
  return client.post(
    `/assets/${assetId}/part`,
    { part: { base64: b64(bytes), type: "application/octet-stream", ...(partNumber !== undefined && { partNumber }), ...(isFinal !== undefined && { isFinal }) } },
    headers,
  );
}

function partRaw(
  client: ApiClient,
  assetId: string,
  bytes: Buffer,
  query: Record<string, string> = {},
  headers: Record<string, string> = { "X-Service-Upload": "part", "Content-Type": "application/octet-stream" },
) {
  const qs = new URLSearchParams(query).toString();
  return client.request("POST", `/assets/${assetId}/part${qs ? `?${qs}` : ""}`, { body: bytes, headers });
}

/** The bytes stored under a storageId (filesystem storage of the test server). */
function storedBytes(storageId: string): Promise<Buffer> {
  return readFile(path.join(inject("dataDir"), "storage", ...storageId.split("/")));
}

async function uploadFiles(projectId: string, assetId: string): Promise<string[]> {
  const dir = path.join(inject("dataDir"), "storage", "projects", projectId, "uploads", assetId);
  return readdir(dir).catch(() => []);
}

let p: TestProject;
let png: Buffer;

beforeAll(async () => {
  p = await newProject();
  png = await pngBytes(24, 16);
});

/** The PNG cut into three parts. */
function thirds(bytes: Buffer): [Buffer, Buffer, Buffer] {
  const a = Math.floor(bytes.length / 3);
  return [bytes.subarray(0, a), bytes.subarray(a, 2 * a), bytes.subarray(2 * a)];
}

describe("multipart upload: happy paths", () => {
  it("JSON start, a JSON part and a raw final part assemble the file", async () => {
    const [one, two, three] = thirds(png);
    // Kept after processing, so the assembled file can be inspected.
    const started = expectOk(await startJson(p, one, { totalSizeInBytes: png.length, processingOptions: { keepContentAfterProcessing: true } }));
    expect(started).toMatchObject({
      status: "uploading",
      uploadPartsReceived: 1,
      name: "multi.png",
      type: "image",
      fileFormat: "image/png",
      sizeInBytes: null,
      checksums: null,
      storageId: null,
    });
    // Nothing is "uploaded" until the final part arrives.
    expect(await db().event.count({ where: { assetId: started.id, type: "asset.uploaded" } })).toBe(0);
    expect(expectOk(await p.client.get(`/assets/${started.id}`)).status).toBe("uploading");

    const second = expectOk(await partJson(p.client, started.id, two, 2, false));
    expect(second).toMatchObject({ id: started.id, status: "uploading", uploadPartsReceived: 2, sizeInBytes: null });

    const done = expectOk(await partRaw(p.client, started.id, three, { partNumber: "3", isFinal: "true" }));
    expect(done).toMatchObject({
      id: started.id,
      status: "approved",
      uploadPartsReceived: 3,
      sizeInBytes: png.length,
      type: "image",
      fileFormat: "image/png",
    });
    expect(done.checksums.sha256).toBe(sha256(png));
    expect(done.imageData).toMatchObject({ width: 24, height: 16 });
    expect(typeof done.storageId).toBe("string");
    expect(done.storageDeletedAt).toBeNull();
    expect(await storedBytes(done.storageId)).toEqual(png);
    expect(expectOk(await p.client.get(`/assets/${started.id}`))).toEqual(done);

    // One asset.uploaded when the upload completed, then the decision's asset.classified.
    const events = await db().event.findMany({ where: { assetId: started.id }, orderBy: { seq: "asc" } });
    expect(events.map((e) => e.type)).toEqual(["asset.uploaded", "asset.classified"]);
    expect(events[0]!.facts).toEqual([
      { key: "asset-name", value: "multi.png" },
      { key: "asset-type", value: "image" },
      { key: "file-format", value: "image/png" },
    ]);
    expect(await uploadFiles(p.projectId, started.id)).toEqual([]);
  });

  it("raw start with X-Service-Upload: part, then raw parts numbered implicitly", async () => {
    const text = Buffer.from("first line\nsecond line\nthird line\n");
    const [one, two, three] = thirds(text);
    const started = expectOk(
      await startRaw(p, one, { name: "notes.txt", description: "multi", visibility: "private", externalId: "mp-notes" }, {
        "X-Service-Upload": "part",
        "Content-Type": "text/plain",
      }),
    );
    expect(started).toMatchObject({
      status: "uploading",
      uploadPartsReceived: 1,
      name: "notes.txt",
      type: "plaintext-document",
      description: "multi",
      visibility: "private",
      externalId: "mp-notes",
    });
    expectOk(await partRaw(p.client, started.id, two));
    const done = expectOk(await partRaw(p.client, started.id, three, { isFinal: "1" }));
    expect(done).toMatchObject({ status: "approved", uploadPartsReceived: 3, sizeInBytes: text.length });
    expect(done.checksums.sha256).toBe(sha256(text));
  });

  it("name of a raw start comes from Content-Disposition when the query has none", async () => {
    const started = expectOk(
      await startRaw(p, png, { isFinal: "true" }, {
        "X-Service-Upload": "part",
        "Content-Type": "image/png",
        "Content-Disposition": 'attachment; filename="from-header.png"',
      }),
    );
    expect(started).toMatchObject({ name: "from-header.png", status: "approved", uploadPartsReceived: 1 });
  });

  it("isFinal on the first part completes the upload at once (JSON and raw)", async () => {
    const viaJson = expectOk(await startJson(p, png, { isFinal: true, totalSizeInBytes: png.length, sizeInBytes: png.length }));
    expect(viaJson).toMatchObject({ status: "approved", uploadPartsReceived: 1, sizeInBytes: png.length });
    expect(viaJson.checksums.sha256).toBe(sha256(png));
    expect(viaJson.imageData).toMatchObject({ width: 24, height: 16 });

    const viaRaw = expectOk(await startRaw(p, png, { isFinal: "true", totalSizeInBytes: String(png.length), name: "raw-one.png" }));
    expect(viaRaw).toMatchObject({ status: "approved", uploadPartsReceived: 1, sizeInBytes: png.length, name: "raw-one.png" });
    expect(viaRaw.checksums.sha256).toBe(sha256(png));
    expect(await db().event.count({ where: { assetId: viaRaw.id, type: "asset.uploaded" } })).toBe(1);
  });

  it("re-sending a part replaces it, and the final checksum reflects the replacement", async () => {
    const a = Buffer.from("AAAA-wrong-first-part|");
    const a2 = Buffer.from("aaaa-right-first-part-longer|");
    const b = Buffer.from("bbbb|");
    const c = Buffer.from("cccc");
    const started = expectOk(await startJson(p, a, { type: "text/plain", name: "resend.txt" }));
    expectOk(await partJson(p.client, started.id, b, 2));
    const replaced = expectOk(await partJson(p.client, started.id, a2, 1));
    expect(replaced.uploadPartsReceived).toBe(2);
    const done = expectOk(await partRaw(p.client, started.id, c, { partNumber: "3", isFinal: "true" }));
    const whole = Buffer.concat([a2, b, c]);
    expect(done).toMatchObject({ status: "approved", sizeInBytes: whole.length, uploadPartsReceived: 3 });
    expect(done.checksums.sha256).toBe(sha256(whole));
  });

  it("a re-sent final part number may also be the last one (parts 1 and 2, then 2 again as final)", async () => {
    const started = expectOk(await startJson(p, Buffer.from("head|"), { type: "text/plain", name: "redo.txt" }));
    expectOk(await partRaw(p.client, started.id, Buffer.from("draft-tail"), { partNumber: "2" }));
    const done = expectOk(await partRaw(p.client, started.id, Buffer.from("tail"), { partNumber: "2", isFinal: "true" }));
    expect(done.checksums.sha256).toBe(sha256(Buffer.from("head|tail")));
    expect(done.uploadPartsReceived).toBe(2);
  });

  it("the queue choice from the start is kept for the final part", async () => {
    for (const queue of ["true", "false"]) {
      const started = expectOk(await startJson(p, Buffer.from("queued "), { type: "text/plain", name: `queue-${queue}` }, queue));
      const done = expectOk(await partJson(p.client, started.id, Buffer.from("text"), 2, true));
      // queue=true: the completed upload comes back pending and is decided in the background;
      // queue=false: the final part waits for the decision.
      expect(done.status, `queue=${queue}`).toBe(queue === "true" ? "pending" : "approved");
      const row = await db().asset.findUniqueOrThrow({ where: { id: done.id }, select: { queued: true } });
      expect(row.queued).toBe(queue === "true");
      expect((await waitForDecision(p.client, done.id)).status).toBe("approved");
    }
    const rawStarted = expectOk(await startRaw(p, Buffer.from("raw queued "), { queue: "1" }, { "X-Service-Upload": "part", "Content-Type": "text/plain" }));
    const rawDone = expectOk(await partRaw(p.client, rawStarted.id, Buffer.from("x"), { isFinal: "true" }));
    expect(rawDone.status).toBe("pending");
    expect((await db().asset.findUniqueOrThrow({ where: { id: rawStarted.id }, select: { queued: true } })).queued).toBe(true);
    expect((await waitForDecision(p.client, rawStarted.id)).status).toBe("approved");
  });

  it("a 10–20 MiB image succeeds through multipart while the same image inline gets 413", async () => {
    const image = await bigPng(15 * MiB);
    const first = image.subarray(0, 8 * MiB);
    const rest = image.subarray(8 * MiB);
    const started = expectOk(await startRaw(p, first, { name: "big.png", totalSizeInBytes: String(image.length) }));
    expect(started).toMatchObject({ status: "uploading", type: "image" });
    const done = expectOk(await partRaw(p.client, started.id, rest, { partNumber: "2", isFinal: "true" }));
    expect(done).toMatchObject({ status: "approved", sizeInBytes: image.length, type: "image", fileFormat: "image/png" });
    expect(done.checksums.sha256).toBe(sha256(image));
    expect(done.imageData).toMatchObject({ width: 20, height: 10 });

    expectError(
      await p.client.post(`/projects/${p.projectId}/assets`, { name: "big.png", content: { base64: b64(image), type: "image/png" } }),
      413,
      "upload/image-requires-multipart",
    );
    expectError(
      await p.client.request("POST", `/projects/${p.projectId}/assets/upload`, {
        body: image,
        headers: { "X-Service-Upload": "content", "Content-Type": "image/png" },
      }),
      413,
      "upload/image-requires-multipart",
    );
  });

  it("without a declared total, the 20 MiB image cap is enforced on the parts; exactly 20 MiB is accepted", async () => {
    const image = await bigPng(20 * MiB);
    const first = image.subarray(0, 12 * MiB);
    const started = expectOk(await startRaw(p, first, { name: "cap.png" }));
    const tooMuch = Buffer.alloc(8 * MiB + 1, 0x44);
    expectError(await partRaw(p.client, started.id, tooMuch, { partNumber: "2", isFinal: "true" }), 413, "upload/too-large");
    // The refused part left the upload usable.
    const done = expectOk(await partRaw(p.client, started.id, image.subarray(12 * MiB), { partNumber: "2", isFinal: "true" }));
    expect(done).toMatchObject({ status: "approved", sizeInBytes: 20 * MiB });
    expect(done.checksums.sha256).toBe(sha256(image));
  });
});

describe("multipart upload: errors", () => {
  it("parts out of order → 409 upload/part-out-of-order; an upload must start with part 1", async () => {
    const started = expectOk(await startJson(p, Buffer.from("one"), { type: "text/plain", name: "order.txt" }));
    expectError(await partJson(p.client, started.id, Buffer.from("three"), 3), 409, "upload/part-out-of-order");
    expectError(await partRaw(p.client, started.id, Buffer.from("five"), { partNumber: "5" }), 409, "upload/part-out-of-order");
    expect(expectOk(await p.client.get(`/assets/${started.id}`)).uploadPartsReceived).toBe(1);

    expectError(await startJson(p, Buffer.from("two"), { type: "text/plain", partNumber: 2 }), 409, "upload/part-out-of-order");
    expectError(await startRaw(p, png, { partNumber: "2" }), 409, "upload/part-out-of-order");
  });

  it("a declared total over the 20 MiB image cap is refused up front with 413 upload/too-large", async () => {
    expectError(await startJson(p, png, { totalSizeInBytes: 20 * MiB + 1 }), 413, "upload/too-large");
    expectError(await startRaw(p, png, { totalSizeInBytes: String(20 * MiB + 1) }), 413, "upload/too-large");
    // Other content is capped at SIEVE_MAX_UPLOAD_BYTES (1 GiB by default).
    expectError(await startJson(p, Buffer.from("text"), { type: "text/plain", totalSizeInBytes: 2 * 1024 * MiB }), 413, "upload/too-large");
    // Exactly 20 MiB may be declared for an image.
    expect(expectOk(await startJson(p, png, { totalSizeInBytes: 20 * MiB })).status).toBe("uploading");
  });

  it("a final total different from the declared one → 400 upload/size-mismatch, and the upload stays usable", async () => {
    const [one, two, three] = thirds(png);
    const started = expectOk(await startJson(p, one, { totalSizeInBytes: png.length, name: "mismatch.png" }));
    expectOk(await partJson(p.client, started.id, two, 2));
    // Too short a final part.
    expectError(await partJson(p.client, started.id, three.subarray(1), 3, true), 400, "upload/size-mismatch");
    // A part that would overflow the declared total.
    expectError(
      await partRaw(p.client, started.id, Buffer.concat([three, Buffer.from("x")]), { partNumber: "3", isFinal: "true" }),
      400,
      "upload/size-mismatch",
    );
    const still = expectOk(await p.client.get(`/assets/${started.id}`));
    expect(still).toMatchObject({ status: "uploading", uploadPartsReceived: 2 });
    const done = expectOk(await partRaw(p.client, started.id, three, { partNumber: "3", isFinal: "true" }));
    expect(done).toMatchObject({ status: "approved", sizeInBytes: png.length });
    expect(done.checksums.sha256).toBe(sha256(png));
  });

  it("isFinal on the first part with a different declared total → 400 upload/size-mismatch", async () => {
    expectError(await startJson(p, png, { isFinal: true, totalSizeInBytes: png.length + 10 }), 400, "upload/size-mismatch");
    expectError(await startRaw(p, png, { isFinal: "true", totalSizeInBytes: String(png.length - 1) }), 400, "upload/size-mismatch");
  });

  it("a part size different from sizeInBytes → 400 upload/size-mismatch", async () => {
    expectError(await startJson(p, png, { sizeInBytes: png.length + 1 }), 400, "upload/size-mismatch");
  });

  it("parts for an asset without an upload in progress → 409 upload/not-in-progress", async () => {
    const done = expectOk(await startJson(p, png, { isFinal: true }));
    expectError(await partJson(p.client, done.id, Buffer.from("more"), 2), 409, "upload/not-in-progress");
    expectError(await partRaw(p.client, done.id, Buffer.from("more"), { partNumber: "1" }), 409, "upload/not-in-progress");
    const inline = expectOk(await p.client.post(`/projects/${p.projectId}/assets`, { name: "inline", content: { plainText: "x", type: "text/plain" } }));
    expectError(await partRaw(p.client, inline.id, Buffer.from("more")), 409, "upload/not-in-progress");
  });

  it("an idle upload expires: 410 upload/expired, then the asset is gone; each part restarts the clock", async () => {
    const idle = expectOk(await startJson(p, Buffer.from("idle "), { type: "text/plain", name: "idle.txt" }));
    const busy = expectOk(await startJson(p, Buffer.from("busy "), { type: "text/plain", name: "busy.txt" }));
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    await sleep(3_000);
    expectOk(await partJson(p.client, busy.id, Buffer.from("still "), 2));
    await sleep(2_600);
    // SIEVE_UPLOAD_EXPIRY_SECONDS=5: the idle upload is past its expiry, the busy one is not.
    const expired = await partJson(p.client, idle.id, Buffer.from("late"), 2, true);
    if (expired.status === 404) expectError(expired, 404, "asset/not-found"); // swept by the server first
    else expectError(expired, 410, "upload/expired");
    expectError(await p.client.get(`/assets/${idle.id}`), 404, "asset/not-found");
    expectError(await partJson(p.client, idle.id, Buffer.from("late"), 2, true), 404, "asset/not-found");
    expect(await uploadFiles(p.projectId, idle.id)).toEqual([]);

    const done = expectOk(await partJson(p.client, busy.id, Buffer.from("here"), 3, true));
    expect(done.checksums.sha256).toBe(sha256(Buffer.from("busy still here")));
  });

  it("empty parts → 400 upload/empty-content; undecodable parts → 400 upload/invalid-content", async () => {
    expectError(await startRaw(p, Buffer.alloc(0)), 400, "upload/empty-content");
    expectError(
      await p.client.post(`/projects/${p.projectId}/assets`, { name: "e", part: { plainText: "", type: "text/plain" } }),
      400,
      "upload/empty-content",
    );
    const started = expectOk(await startJson(p, Buffer.from("start"), { type: "text/plain", name: "empty-parts.txt" }));
    expectError(await partRaw(p.client, started.id, Buffer.alloc(0)), 400, "upload/empty-content");
    expectError(await partJson(p.client, started.id, Buffer.alloc(0), 2), 400, "upload/empty-content");
    expectError(
      await p.client.post(`/assets/${started.id}/part`, { part: { base64: "***", type: "text/plain", partNumber: 2 } }),
      400,
      "upload/invalid-content",
    );
    expect(expectOk(await p.client.get(`/assets/${started.id}`)).uploadPartsReceived).toBe(1);
  });

  it("request validation of starts and parts → 400 request/validation-failed", async () => {
    const bad: unknown[] = [
      { name: "v", part: { base64: b64(png), type: "image/png", partNumber: 0 } },
      { name: "v", part: { base64: b64(png), type: "image/png", partNumber: 1.5 } },
      { name: "v", part: { base64: b64(png), type: "image/png", isFinal: "yes" } },
      { name: "v", part: { base64: b64(png), type: "image/png" }, isFinal: true },
      { name: "v", part: { base64: b64(png), type: "image/png", size: 3 } },
      { name: "v", part: { base64: b64(png) } },
      { name: "v", part: { base64: b64(png), plainText: "x", type: "image/png" } },
      { name: "v", part: { base64: b64(png), type: "image/png" }, totalSizeInBytes: 0 },
      { name: "v", part: { base64: b64(png), type: "image/png" }, sizeInBytes: -1 },
      { name: "v", part: { base64: b64(png), type: "image/png" }, content: { plainText: "x", type: "text/plain" } },
    ];
    for (const body of bad) {
      expectError(await p.client.post(`/projects/${p.projectId}/assets`, body), 400, "request/validation-failed");
    }
    expectError(await startRaw(p, png, { partNumber: "0" }), 400, "request/validation-failed");
    expectError(await startRaw(p, png, { totalSizeInBytes: "lots" }), 400, "request/validation-failed");
    expectError(await startRaw(p, png, { isFinal: "maybe" }), 400, "request/validation-failed");
    expectError(await startRaw(p, png, { colour: "red" }), 400, "request/validation-failed");

    const started = expectOk(await startJson(p, Buffer.from("s"), { type: "text/plain", name: "validate.txt" }));
    expectError(await partRaw(p.client, started.id, Buffer.from("x"), { partNumber: "0" }), 400, "request/validation-failed");
    expectError(await partRaw(p.client, started.id, Buffer.from("x"), { colour: "red" }), 400, "request/validation-failed");
    expectError(await p.client.post(`/assets/${started.id}/part`, { part: { base64: "eA==", type: "text/plain" }, extra: 1 }), 400, "request/validation-failed");
    expectError(await p.client.post(`/assets/${started.id}/part`, { base64: "eA==", type: "text/plain" }), 400, "request/validation-failed");
    expectError(await p.client.post(`/assets/${started.id}/part`, { part: { type: "text/plain" } }), 400, "request/validation-failed");
    const broken = await p.client.request("POST", `/assets/${started.id}/part`, { body: "{", headers: { "Content-Type": "application/json" } });
    expectError(broken, 400, "request/malformed-json");
  });

  it("missing or wrong upload headers → 400 upload/missing-header", async () => {
    expectError(await startRaw(p, png, {}, { "Content-Type": "image/png" }), 400, "upload/missing-header");
    expectError(await startRaw(p, png, {}, { "X-Service-Upload": "content", "Content-Type": "image/png" }), 400, "upload/missing-header");
    expectError(await startRaw(p, png, {}, { "X-Service-Upload": "part" }), 400, "upload/missing-header");
    const started = expectOk(await startJson(p, Buffer.from("s"), { type: "text/plain", name: "headers.txt" }));
    expectError(await partRaw(p.client, started.id, Buffer.from("x"), {}, { "Content-Type": "text/plain" }), 400, "upload/missing-header");
    expectError(await partRaw(p.client, started.id, Buffer.from("x"), {}, { "X-Service-Upload": "content", "Content-Type": "text/plain" }), 400, "upload/missing-header");
  });

  it("allowance: a multipart upload counts when it completes; a used-up allowance refuses the final part", async () => {
    const q = await newProject();
    await setUploadAllowance(q.ownerUserId, 1);
    const started = expectOk(await startJson(q, Buffer.from("begun "), { type: "text/plain", name: "late.txt" }));
    expectOk(await q.client.post(`/projects/${q.projectId}/assets`, { name: "first", content: { plainText: "x", type: "text/plain" } }));
    expectError(await partJson(q.client, started.id, Buffer.from("end"), 2, true), 402, "upload/allowance-exhausted");
    // The refused final part is kept for a retry, but the asset is not complete.
    expect(expectOk(await q.client.get(`/assets/${started.id}`))).toMatchObject({ status: "uploading", sizeInBytes: null });
    expect(await db().event.count({ where: { projectId: q.projectId, type: "usage.limit-reached" } })).toBe(1);
    // Raising the allowance lets the same final part through.
    await setUploadAllowance(q.ownerUserId, 2);
    const done = expectOk(await partJson(q.client, started.id, Buffer.from("end"), 2, true));
    expect(done.checksums.sha256).toBe(sha256(Buffer.from("begun end")));
  });

  it("part endpoint: unknown, malformed and foreign asset ids, and authentication", async () => {
    const started = expectOk(await startJson(p, Buffer.from("s"), { type: "text/plain", name: "auth.txt" }));
    expectError(await partRaw(p.client, "00000000-0000-4000-8000-000000000000", Buffer.from("x")), 404, "asset/not-found");
    expectError(await partRaw(p.client, "not-a-uuid", Buffer.from("x")), 404, "asset/not-found");
    const other = await newProject();
    expectError(await partRaw(other.client, started.id, Buffer.from("x")), 403, "auth/project-mismatch");
    expectError(await partRaw(new ApiClient(null), started.id, Buffer.from("x")), 401, "auth/missing-token");
    expectError(await partRaw(new ApiClient("sieve_nope"), started.id, Buffer.from("x")), 401, "auth/invalid-api-key");
    const readOnly = await newKey(p.projectId, ["assets:read"]);
    expectError(await partRaw(readOnly.client, started.id, Buffer.from("x")), 403, "auth/insufficient-permissions");
    expectError(await startRaw(other, png, {}, { "X-Service-Upload": "part", "Content-Type": "image/png", "X-Api-Key": p.apiKey }), 403, "auth/project-mismatch");
    expect(expectOk(await p.client.get(`/assets/${started.id}`)).uploadPartsReceived).toBe(1);
  });

  it("raw start: project, folder and externalId errors", async () => {
    expectError(await startRaw({ ...p, projectId: "00000000-0000-4000-8000-000000000000" }, png), 404, "project/not-found");
    expectError(await startRaw(p, png, { folderId: "00000000-0000-4000-8000-000000000000" }), 404, "folder/not-found");
    expectError(await startJson(p, png, { folderId: "00000000-0000-4000-8000-000000000000" }), 404, "folder/not-found");
    expectOk(await startRaw(p, png, { externalId: "mp-dup" }));
    expectError(await startRaw(p, png, { externalId: "mp-dup" }), 409, "asset/duplicate-external-id");
    expectError(await startJson(p, png, { externalId: "mp-dup" }), 409, "asset/duplicate-external-id");
    const anonymous = { ...p, client: new ApiClient(null) };
    expectError(await startRaw(anonymous, png), 401, "auth/missing-token");
  });

  it("a JSON part over SIEVE_MAX_JSON_BODY_BYTES (64 MiB) → 413 request/body-too-large", async () => {
    const started = expectOk(await startJson(p, Buffer.from("s"), { type: "text/plain", name: "huge-json.txt" }));
    const res = await p.client.request("POST", `/assets/${started.id}/part`, {
      body: Buffer.alloc(64 * MiB + 1, 0x20),
      headers: { "Content-Type": "application/json" },
    });
    expectError(res, 413, "request/body-too-large");
    expect(expectOk(await p.client.get(`/assets/${started.id}`)).uploadPartsReceived).toBe(1);
  });

  it("Idempotency-Key on a raw start: a retry replays the same upload", async () => {
    const headers = { "X-Service-Upload": "part", "Content-Type": "image/png", "Idempotency-Key": "raw-start-1" };
    const first = expectOk(await startRaw(p, png, { name: "idem-start.png" }, headers));
    const replay = await startRaw(p, png, { name: "idem-start.png" }, headers);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(expectOk(replay).id).toBe(first.id);
    expectError(await startRaw(p, png, { name: "idem-start-2.png" }, headers), 422, "idempotency/key-reused");
    expect(await db().asset.count({ where: { projectId: p.projectId, name: "idem-start.png" } })).toBe(1);
  });

  it("Idempotency-Key on a part: a retry replays the response instead of adding a part", async () => {
    const started = expectOk(await startJson(p, Buffer.from("one "), { type: "text/plain", name: "idem-parts.txt" }));
    const headers = { "X-Service-Upload": "part", "Content-Type": "text/plain", "Idempotency-Key": `part-2-${started.id}` };
    const first = expectOk(await partRaw(p.client, started.id, Buffer.from("two "), { partNumber: "2" }, headers));
    const replay = await partRaw(p.client, started.id, Buffer.from("two "), { partNumber: "2" }, headers);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(expectOk(replay)).toEqual(first);
    expectError(await partRaw(p.client, started.id, Buffer.from("TWO "), { partNumber: "2" }, headers), 422, "idempotency/key-reused");
    expectError(
      await partRaw(p.client, started.id, Buffer.from("two "), { partNumber: "2" }, { ...headers, "Idempotency-Key": "ünïcode" }),
      400,
      "idempotency/invalid-key",
    );

    const jsonKey = { "Idempotency-Key": `part-3-${started.id}` };
    const done = expectOk(await partJson(p.client, started.id, Buffer.from("three"), 3, true, jsonKey));
    const again = await partJson(p.client, started.id, Buffer.from("three"), 3, true, jsonKey);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(expectOk(again)).toEqual(done);
    expect(done.checksums.sha256).toBe(sha256(Buffer.from("one two three")));
  });
});
