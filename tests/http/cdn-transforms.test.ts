import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { makePdf, makeVideo } from "@/tests/support/media-fixtures";
import { admin, expectError, expectOk, newProject, waitForDecision, type TestProject } from "./support";
import { cdn, contentPath, expectCdnHeaders, gradientJpeg, imageInfo, upload } from "./cdn-support";
import { forgedHeaderPng } from "../support/png-fixtures";

/** CDN transforms, lenses and previews: the served images are decoded to check real format and size. */

let p: TestProject;
let asset: Record<string, any>;

const lens = (identifier: string, version: number, options: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  identifier,
  name: identifier,
  type: "image",
  active: true,
  version,
  transforms: [{ type: "imageTransform", options }],
  ...extra,
});

beforeAll(async () => {
  p = await newProject();
  asset = await upload(p, await gradientJpeg(1200, 800), "image/jpeg", { name: "photo.jpg" });
  expect(asset.status).toBe("approved");
});

describe("CDN: imageTransform", () => {
  it.each([
    ["width=300", { format: "jpeg", width: 300, height: 200 }],
    ["width=300,format=webp", { format: "webp", width: 300, height: 200 }],
    ["width=120,height=120,fit=cover,format=png", { format: "png", width: 120, height: 120 }],
    ["width=120,height=120,fit=inside,format=jpeg", { format: "jpeg", width: 120, height: 80 }],
    ["height=100,format=avif", { format: "heif", width: 150, height: 100 }],
    ["width=64,format=jpg", { format: "jpeg", width: 64 }],
  ])("imageTransform[%s]", async (options, expected) => {
    const res = await cdn(contentPath(asset, `/imageTransform[${options}]`));
    expect(res.status, res.text).toBe(200);
    const info = await imageInfo(res.bytes);
    expect(info).toMatchObject(expected);
    expectCdnHeaders(res, `image/${expected.format === "heif" ? "avif" : expected.format}`);
  });

  it("gives equal selectors one cache entry and validates with 304", async () => {
    const a = await cdn(contentPath(asset, "/imageTransform[width=200,format=webp]"));
    const b = await cdn(contentPath(asset, "/imageTransform%5Bformat%3Dwebp%2Cwidth%3D200%5D"));
    expect(b.headers.get("etag")).toBe(a.headers.get("etag"));
    expect(b.bytes.equals(a.bytes)).toBe(true);
    const again = await cdn(contentPath(asset, "/imageTransform[width=200,format=webp]"), { headers: { "If-None-Match": a.headers.get("etag") as string } });
    expect(again.status).toBe(304);
  });

  it("refuses malformed selectors (invalid-transform) and bad options (invalid-transform-options)", async () => {
    for (const bad of ["imageTransform", "imageTransform[", "imageTransform[]", "resize[width=10]", "imageTransform[width=10]x", "@Bad_Lens", "@no-such-lens"]) {
      expectError(await cdn(contentPath(asset, `/${bad}`)), 400, "asset/invalid-transform");
    }
    for (const bad of ["width=0", "width=9000", "width=abc", "fit=squash", "format=bmp", "quality=101", "colour=red", "width=10,width=20"]) {
      expectError(await cdn(contentPath(asset, `/imageTransform[${bad}]`)), 400, "asset/invalid-transform-options");
    }
  });

  it("refuses a decompression bomb fast, before decoding it", async () => {
    const lax = await newProject();
    await admin("set-moderation", "--project", lax.projectId, "--unanalysable", "approve");
    const bomb = await upload(lax, forgedHeaderPng(50_000, 50_000), "image/png");
    expect(bomb.status).toBe("approved");
    const started = Date.now();
    const res = await cdn(contentPath(bomb, "/imageTransform[width=100]"));
    expect(Date.now() - started).toBeLessThan(1_000);
    const body = expectError(res, 500, "asset/transform-failed");
    expect(body.message).toMatch(/50000/);
  });
});

describe("CDN: lenses", () => {
  it("applies a project lens, serves version N+1 at once, and refuses inactive lenses", async () => {
    expectOk(await p.client.request("PUT", "/lenses/card", { json: lens("card", 1, { width: 100, format: "png" }) }));
    const v1 = await cdn(contentPath(asset, "/@card"));
    expect(v1.status, v1.text).toBe(200);
    expect(await imageInfo(v1.bytes)).toMatchObject({ format: "png", width: 100, height: 67 });
    // Warm: repeats are answered by the hot path, which must notice the new version too.
    for (let i = 0; i < 3; i++) expect((await cdn(contentPath(asset, "/@card"))).bytes.equals(v1.bytes)).toBe(true);

    expectOk(await p.client.request("PUT", "/lenses/card", { json: lens("card", 2, { width: 50, format: "webp" }) }));
    const v2 = await cdn(contentPath(asset, "/@card"));
    expect(await imageInfo(v2.bytes)).toMatchObject({ format: "webp", width: 50 });
    expect(v2.headers.get("etag")).not.toBe(v1.headers.get("etag"));

    expectOk(await p.client.request("PUT", "/lenses/card", { json: lens("card", 3, { width: 50 }, { active: false }) }));
    expectError(await cdn(contentPath(asset, "/@card")), 400, "asset/invalid-transform");
  });

  it("serves the built-in lenses, which a project lens of the same identifier overrides", async () => {
    expect(await imageInfo((await cdn(contentPath(asset, "/@thumbnail"))).bytes)).toMatchObject({ format: "webp", width: 256, height: 256 });
    expect(await imageInfo((await cdn(contentPath(asset, "/@web-optimised"))).bytes)).toMatchObject({ format: "webp", width: 1200, height: 800 });
    const own = await newProject();
    const ownAsset = await upload(own, await gradientJpeg(400, 200), "image/jpeg");
    expectOk(await own.client.request("PUT", "/lenses/thumbnail", { json: lens("thumbnail", 1, { width: 40, height: 40, format: "png" }) }));
    expect(await imageInfo((await cdn(contentPath(ownAsset, "/@thumbnail"))).bytes)).toMatchObject({ format: "png", width: 40, height: 40 });
  });

  it("refuses a lens of another asset type", async () => {
    expectOk(await p.client.request("PUT", "/lenses/poster", { json: lens("poster", 1, { width: 100 }, { type: "video" }) }));
    const res = expectError(await cdn(contentPath(asset, "/@poster")), 400, "asset/invalid-transform");
    expect(res.message).toMatch(/video/);
  });
});

describe("CDN: previews", () => {
  it("serves an image's preview as WebP, with lenses and transforms on it", async () => {
    const res = await cdn(`/assets/${p.projectId}/${asset.id}/preview`);
    expect(res.status, res.text).toBe(200);
    expectCdnHeaders(res, "image/webp");
    expect(await imageInfo(res.bytes)).toMatchObject({ format: "webp", width: 1024, height: 683 });
    const small = await cdn(`/assets/${p.projectId}/${asset.id}/preview/imageTransform[width=100,format=png]`);
    expect(await imageInfo(small.bytes)).toMatchObject({ format: "png", width: 100 });
    const thumb = await cdn(`/assets/${p.projectId}/${asset.id}/preview/@thumbnail`);
    expect(await imageInfo(thumb.bytes)).toMatchObject({ format: "webp", width: 256, height: 256 });
  });

  it("answers 404 asset/no-preview for an asset without one", async () => {
    const res = await p.client.request("POST", `/projects/${p.projectId}/assets/upload?name=note.txt&queue=false&keepContentAfterProcessing=true&visibility=public`, {
      body: Buffer.from("a calm note about the weather"),
      headers: { "X-Service-Upload": "content", "Content-Type": "text/plain" },
    });
    const text = expectOk(res);
    expect(text.status).toBe("approved");
    expectError(await cdn(`/assets/${p.projectId}/${text.id}/preview`), 404, "asset/no-preview");
    expect((await cdn(contentPath(text))).status).toBe(200);
    expectError(await cdn(contentPath(text, "/imageTransform[width=10]")), 400, "asset/invalid-transform");
  });
});

describe("CDN: previews and lenses of other types", () => {
  it("serves a video's poster frame at /preview; video and image lenses act on it; content stays the video", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "sieve-cdn-video-"));
    try {
      const mp4 = await readFile(await makeVideo(dir, { seconds: 2, width: 320, height: 240, withAudio: false }));
      const created = await upload(p, mp4, "video/mp4", { name: "clip.mp4", queue: "true" });
      const video = await waitForDecision(p.client, created.id, 120_000);
      expect(video.status).toBe("approved");
      const poster = await cdn(`/assets/${p.projectId}/${video.id}/preview`);
      expect(poster.status, poster.text).toBe(200);
      expect(await imageInfo(poster.bytes)).toMatchObject({ format: "webp", width: 320, height: 240 });

      expectOk(await p.client.request("PUT", "/lenses/video-poster", { json: lens("video-poster", 1, { width: 160, format: "jpeg" }, { type: "video" }) }));
      const viaLens = await cdn(contentPath(video, "/@video-poster"));
      expect(viaLens.status, viaLens.text).toBe(200);
      expect(await imageInfo(viaLens.bytes)).toMatchObject({ format: "jpeg", width: 160, height: 120 });
      expect(await imageInfo((await cdn(contentPath(video, "/@thumbnail"))).bytes)).toMatchObject({ format: "webp", width: 256, height: 256 });
      expectError(await cdn(contentPath(video, "/imageTransform[width=100]")), 400, "asset/invalid-transform");

      const whole = await cdn(contentPath(video));
      expect(whole.headers.get("content-type")).toBe("video/mp4");
      expect(whole.bytes.equals(mp4)).toBe(true);
      const range = await cdn(contentPath(video), { headers: { Range: "bytes=0-1023" } });
      expect(range.status).toBe(206);
      expect(range.bytes.equals(mp4.subarray(0, 1024))).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("serves a PDF's first page at /preview", async () => {
    const pdf = makePdf({ pages: [{ text: "Garden club minutes" }, { text: "Page two" }] });
    const created = await upload(p, pdf, "application/pdf", { name: "minutes.pdf", queue: "true" });
    const doc = await waitForDecision(p.client, created.id, 60_000);
    expect(doc.status).toBe("approved");
    const page = await cdn(`/assets/${p.projectId}/${doc.id}/preview`);
    expect(page.status, page.text).toBe(200);
    expect(await imageInfo(page.bytes)).toMatchObject({ format: "webp", height: 1024 });
    expect(page.headers.get("content-disposition")).toBe(`inline; filename="minutes.webp"; filename*=UTF-8''minutes.webp`);
    expect((await cdn(contentPath(doc))).headers.get("content-type")).toBe("application/pdf");
  });
});
