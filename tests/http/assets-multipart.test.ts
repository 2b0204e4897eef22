import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { expectError, expectOk, newProject, pngBytes, waitForDecision, MiB, sha256, storedBytes, type TestProject } from "./support";
import { b64, bigPng, startJson, startRaw, partJson, partRaw, uploadFiles, thirds } from "./multipart-support";

/**
 * Multipart uploads: variant B of Create Asset, the raw start endpoint and POST /assets/:id/part.
 * When the final part arrives the upload is processed like any other: with queue=false (the
 * default) text and images come back decided (benign content: `approved`).
 * Errors: assets-multipart-errors.test.ts.
 */

let p: TestProject;
let png: Buffer;

beforeAll(async () => {
  p = await newProject();
  png = await pngBytes(24, 16);
});

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
