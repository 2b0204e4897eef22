import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { setUploadAllowance } from "@/lib/usage/allowance";
import { ApiClient, expectError, expectOk, newKey, newProject, pngBytes, MiB, sha256, type TestProject } from "./support";
import { b64, startJson, startRaw, partJson, partRaw, uploadFiles, thirds } from "./multipart-support";

/**
 * Multipart uploads: variant B of Create Asset, the raw start endpoint and POST /assets/:id/part.
 * When the final part arrives the upload is processed like any other: with queue=false (the
 * default) text and images come back decided (benign content: `approved`).
 * The happy paths: assets-multipart.test.ts.
 */

let p: TestProject;
let png: Buffer;

beforeAll(async () => {
  p = await newProject();
  png = await pngBytes(24, 16);
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
    const res = await p.client.sendOversized("POST", `/assets/${started.id}/part`, Buffer.alloc(64 * MiB + 1, 0x20), { "Content-Type": "application/json" });
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
