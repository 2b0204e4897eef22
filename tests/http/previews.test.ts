import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { previewContentKey } from "@/lib/assets/storage-keys";
import { hasHeifEnc, makeHeic } from "@/tests/support/heic-fixtures";
import { makeJpeg, makePdf, makeVideo } from "@/tests/support/media-fixtures";
import { expectOk, newProject, storedBytes, waitForDecision, type TestProject } from "./support";

/**
 * Previews made at processing time: `previewImage` on the asset and the WebP stored at
 * previewContentKey, for each type that has one, only when content is retained, and gone with the
 * content.
 */

let p: TestProject;
let dir: string;
const KEEP = { processingOptions: { keepContentAfterProcessing: true } };
const DROP = { processingOptions: { keepContentAfterProcessing: false } };

beforeAll(async () => {
  p = await newProject();
  dir = await mkdtemp(path.join(os.tmpdir(), "sieve-previews-test-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function create(name: string, type: string, bytes: Buffer, extra: Record<string, unknown>) {
  return expectOk(await p.client.post(`/projects/${p.projectId}/assets?queue=false`, { name, content: { type, base64: bytes.toString("base64") }, ...extra }));
}

/** The asset once decided, approved, with a preview whose stored bytes are the WebP it describes. */
async function expectPreview(created: Record<string, any>, expected: { source: string; width: number; height: number }) {
  const asset = await waitForDecision(p.client, created.id, 120_000);
  expect(asset.status).toBe("approved");
  expect(asset.previewImage).toEqual({ fileFormat: "image/webp", sizeInBytes: expect.any(Number), generation: expect.any(Number), ...expected });
  const bytes = await storedBytes(previewContentKey(p.projectId, asset.id));
  expect(bytes.length).toBe(asset.previewImage.sizeInBytes);
  const meta = await sharp(bytes).metadata();
  expect({ format: meta.format, width: meta.width, height: meta.height, exif: meta.exif !== undefined }).toEqual({
    format: "webp",
    width: expected.width,
    height: expected.height,
    exif: false,
  });
  return asset;
}

const previewStored = (assetId: string) => storedBytes(previewContentKey(p.projectId, assetId)).then(() => true, () => false);

describe("previews of retained content", () => {
  it("a PNG becomes a WebP of at most 1024 px", async () => {
    const png = await sharp({ create: { width: 1600, height: 800, channels: 3, background: { r: 40, g: 120, b: 200 } } }).png().toBuffer();
    await expectPreview(await create("wide.png", "image/png", png, KEEP), { source: "image", width: 1024, height: 512 });
  });

  it("a JPEG is turned upright by its EXIF orientation", async () => {
    const jpeg = await sharp(await makeJpeg({ width: 300, height: 200 })).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    await expectPreview(await create("phone.jpg", "image/jpeg", jpeg, KEEP), { source: "image", width: 200, height: 300 });
  });

  it("an SVG is rasterized, never served as SVG", async () => {
    const svg = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200"><rect width="100%" height="100%" fill="#2a7"/></svg>`);
    await expectPreview(await create("logo.svg", "image/svg+xml", svg, KEEP), { source: "image", width: 400, height: 200 });
  });

  it("a PDF previews as its first page", async () => {
    const pdf = makePdf({ pages: [{ text: "Garden club minutes" }, { text: "Page two" }] });
    const asset = await waitForDecision(p.client, (await create("minutes.pdf", "application/pdf", pdf, KEEP)).id);
    expect(asset.previewImage).toMatchObject({ source: "pdf-page", height: 1024 });
    await expectPreview(asset, { source: "pdf-page", width: asset.previewImage.width, height: 1024 });
  });

  it("a video previews as its poster frame", async () => {
    const mp4 = await readFile(await makeVideo(dir, { seconds: 2, width: 320, height: 240, withAudio: false }));
    await expectPreview(await create("clip.mp4", "video/mp4", mp4, KEEP), { source: "video-frame", width: 320, height: 240 });
  });

  it("a website previews as a card drawn from its text", async () => {
    const html = "<html><head><title>Lake district walks</title></head><body><h1>Walks</h1><p>Routes around the lake for every season.</p></body></html>";
    const created = expectOk(
      await p.client.post(`/projects/${p.projectId}/assets?queue=false`, { name: "walks.html", content: { type: "text/html", plainText: html }, ...KEEP }),
    );
    expect(created.type).toBe("website");
    await expectPreview(created, { source: "website", width: 1024, height: 640 });
  });

  it.skipIf(!hasHeifEnc())("a HEIC photo is judged and previews as WebP", async () => {
    const heic = await makeHeic(1200, 900, { background: { r: 140, g: 90, b: 60 } });
    const created = await create("photo.heic", "image/heic", heic, KEEP);
    expect(created.fileFormat).toBe("image/heic");
    const asset = await expectPreview(created, { source: "image", width: 1024, height: 768 });
    // Judged from its decoded pixels: nothing was left unanalysed.
    expect(asset.report.notes.unanalysed).toBeUndefined();
    expect(asset.report.categories.sexual.status).toBe("evaluated");
  });
});

describe("no preview", () => {
  it("when the content is not kept", async () => {
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#888" } }).png().toBuffer();
    const asset = await waitForDecision(p.client, (await create("gone.png", "image/png", png, DROP)).id);
    expect(asset).toMatchObject({ status: "approved", storageId: null, previewImage: null });
    expect(await previewStored(asset.id)).toBe(false);
  });

  it("for text", async () => {
    const asset = expectOk(
      await p.client.post(`/projects/${p.projectId}/assets?queue=false`, { name: "note.txt", content: { type: "text/plain", plainText: "See you at the lake." }, ...KEEP }),
    );
    expect(asset).toMatchObject({ status: "approved", previewImage: null });
    expect(await previewStored(asset.id)).toBe(false);
  });

  it("once the content is deleted", async () => {
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#468" } }).png().toBuffer();
    const asset = await expectPreview(await create("later.png", "image/png", png, KEEP), { source: "image", width: 64, height: 64 });
    const removed = expectOk(await p.client.delete(`/assets/${asset.id}/content`));
    expect(removed).toMatchObject({ storageId: null, previewImage: null });
    expect(await previewStored(asset.id)).toBe(false);
  });
});
