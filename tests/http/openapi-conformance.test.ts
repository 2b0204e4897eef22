import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import type { Asset, CategoryEntry, Report, SieveClient } from "@/lib/client/sieve-client";
import { makeJpeg, makeVideo } from "@/tests/support/media-fixtures";
import { forgedHeaderPng } from "@/tests/support/png-fixtures";
import { typedClient } from "./conformance-support";
import { newProject, type TestProject } from "./support";

/**
 * The typed client generated from the OpenAPI document (lib/client), used as a program would use
 * it, without casts, on the shapes the document used to get wrong: an image with EXIF orientation,
 * a hash-list safety hold, and every report shape (evaluated with qualifiers, not-evaluated for
 * both reasons, media segments). Its fetch checks each response against the served document with
 * Ajv (tests/http/conformance-support.ts), as ApiClient does for the rest of the suite; `partial`
 * entries need a second provider and are checked the same way in tests/http/providers.test.ts.
 */

let p: TestProject;
let sieve: SieveClient;
let dir: string;

beforeAll(async () => {
  p = await newProject();
  sieve = typedClient(p.apiKey);
  dir = await mkdtemp(path.join(os.tmpdir(), "sieve-conformance-"));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function upload(name: string, type: string, bytes: Buffer): Promise<Asset> {
  const { data, error } = await sieve.POST("/projects/{projectId}/assets", {
    params: { path: { projectId: p.projectId }, query: { queue: "false" } },
    body: { name, content: { base64: bytes.toString("base64"), type }, processingOptions: { keepContentAfterProcessing: true } },
  });
  if (error) throw new Error(`upload ${name}: ${error.code} ${error.message}`);
  return data.status === "pending" ? decided(data.id) : data;
}

async function decided(assetId: string): Promise<Asset> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { data, error } = await sieve.GET("/assets/{assetId}", { params: { path: { assetId } } });
    if (error) throw new Error(`get ${assetId}: ${error.code}`);
    if (data.status !== "pending" && data.status !== "uploading") return data;
    if (Date.now() > deadline) throw new Error(`${assetId} still ${data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Every category entry of a report, its media segments' included. */
function entriesOf(report: Report): CategoryEntry[] {
  const all = [report.categories, ...(report.media?.segments ?? []).map((s) => s.categories)];
  return all.flatMap((categories) => Object.values(categories));
}

describe("the typed client and the document, on real responses", () => {
  it("reads an EXIF orientation from imageData", async () => {
    const jpeg = await sharp(await makeJpeg({ width: 60, height: 40 })).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    const asset = await upload("rotated.jpg", "image/jpeg", jpeg);
    expect(asset.imageData).toMatchObject({ width: 60, height: 40, format: "jpeg", orientation: 6 });
  });

  it("reads a hash-list hold: list, label, hash, distance and where", async () => {
    const picture = await makeJpeg({ width: 128, height: 96, color: { r: 200, g: 40, b: 160 } });
    const { createHashList, addHashes } = await import("@/lib/moderation/hashing/lists");
    const { imageHashPair } = await import("@/lib/moderation/hashing/phash");
    const list = `conformance-${Date.now()}`;
    await createHashList({ name: list });
    // Hash lists are global: remove it afterwards so later uploads on the shared server are not held.
    onTestFinished(async () => {
      const { db } = await import("@/lib/db/client");
      await db().hashList.delete({ where: { name: list } });
    });
    await addHashes(list, await imageHashPair(picture), { label: "conformance entry" });

    const held = await upload("held.jpg", "image/jpeg", picture);
    const hold = held.safetyHold;
    if (hold?.source !== "hash-list") throw new Error(`expected a hash-list hold, got ${JSON.stringify(hold)}`);
    expect(hold).toMatchObject({ list, label: "conformance entry", where: "image" });
    expect(hold.distance).toBeGreaterThanOrEqual(0);
    expect(hold.hash).toMatch(/^[0-9a-f]+$/);
    const refused = await sieve.PATCH("/assets/{assetId}", { params: { path: { assetId: held.id } }, body: { name: "renamed" } });
    expect(refused.error?.code).toBe("asset/safety-held");
  });

  it("reads every report shape: evaluated with qualifiers, not-evaluated (not-supported, unavailable), media segments", async () => {
    const text = await upload("threat.txt", "text/plain", Buffer.from("I will hurt you and your family tonight."));
    const violence = text.report?.categories.violence;
    if (violence?.status !== "evaluated") throw new Error(`violence: ${JSON.stringify(violence)}`);
    expect(violence.likelihood).toMatch(/likely/);
    expect(Object.values(violence.qualifiers ?? {}).some((q) => q.status === "evaluated" && q.score > 0)).toBe(true);

    const photo = await upload("photo.jpg", "image/jpeg", await makeJpeg({ width: 64, height: 48 }));
    expect(photo.report?.categories.hate).toEqual({ status: "not-evaluated", reason: "not-supported" });

    const forged = await upload("forged.png", "image/png", forgedHeaderPng());
    expect(forged.report?.categories.sexual).toEqual({ status: "not-evaluated", reason: "unavailable" });

    const clip = await upload("clip.mp4", "video/mp4", await readFile(await makeVideo(dir, { seconds: 2, withAudio: false, name: "conformance.mp4" })));
    const media = clip.report?.media;
    expect(media?.segments.some((s) => s.source === "frame" && s.endSeconds >= s.startSeconds)).toBe(true);

    const statuses = new Set([text, photo, forged, clip].flatMap((a) => (a.report ? entriesOf(a.report) : [])).map((e) => e.status));
    expect([...statuses].sort()).toEqual(["evaluated", "not-evaluated"]);
  });

  it("reads errors as the documented error body", async () => {
    const { data, error, response } = await sieve.GET("/assets/{assetId}", { params: { path: { assetId: "0b7c1e9e-2f55-4a53-9d8e-3c1a51c8a0f2" } } });
    expect(data).toBeUndefined();
    expect(response.status).toBe(404);
    expect(error).toEqual({ message: expect.any(String), code: "asset/not-found", traceId: response.headers.get("x-request-id") });
  });
});
