import { readdir } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { admin, expectError, expectOk, newKey, newProject, type TestProject } from "./support";
import { cdn, contentPath, eventually, expectCdnHeaders, gradientJpeg, imageInfo, upload } from "./cdn-support";

/** The CDN (/cdn/v1): serving rules, access, signed URLs, HTTP semantics — against the production server. */

let p: TestProject;
let jpeg: Buffer;

beforeAll(async () => {
  p = await newProject();
  jpeg = await gradientJpeg(640, 480);
});

describe("CDN: serving content", () => {
  it("serves a public approved image's exact bytes with validators, by id and by externalId", async () => {
    const asset = await upload(p, jpeg, "image/jpeg", { externalId: "cdn-ext 1 é?" });
    expect(asset.status).toBe("approved");
    const res = await cdn(contentPath(asset));
    expect(res.status).toBe(200);
    expect(res.bytes.equals(jpeg)).toBe(true);
    expectCdnHeaders(res, "image/jpeg");
    expect(res.headers.get("cache-control")).toBe("public, max-age=5, must-revalidate");
    expect(res.headers.get("accept-ranges")).toBe("bytes");

    const byExternal = await cdn(`/assets/${p.projectId}/${encodeURIComponent("cdn-ext 1 é?")}/content`);
    expect(byExternal.status).toBe(200);
    expect(byExternal.headers.get("etag")).toBe(res.headers.get("etag"));

    const notModified = await cdn(contentPath(asset), { headers: { "If-None-Match": res.headers.get("etag") as string } });
    expect(notModified.status).toBe(304);
    expect(notModified.bytes.length).toBe(0);

    const head = await cdn(contentPath(asset), { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(jpeg.length));
    expect(head.bytes.length).toBe(0);
  });

  it("answers unknown assets, projects and paths with the spec's error body", async () => {
    expectError(await cdn(`/assets/${p.projectId}/00000000-0000-4000-8000-000000000000/content`), 404, "asset/not-found");
    expectError(await cdn(`/assets/not-a-project/x/content`), 404, "asset/not-found");
    expectError(await cdn(`/assets/${p.projectId}/x/original`), 404, "request/route-not-found");
    expectError(await cdn(`/assets/${p.projectId}/x/content`, { method: "POST" }), 405, "request/method-not-allowed");
  });

  it("serves byte ranges (206), suffix ranges, and refuses unsatisfiable ones (416)", async () => {
    const big = await gradientJpeg(1600, 1200); // > 1 MiB? no matter: ranges work from memory and from storage
    const asset = await upload(p, big, "image/jpeg");
    const part = await cdn(contentPath(asset), { headers: { Range: "bytes=10-109" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 10-109/${big.length}`);
    expect(part.bytes.equals(big.subarray(10, 110))).toBe(true);
    const tail = await cdn(contentPath(asset), { headers: { Range: "bytes=-50" } });
    expect(tail.status).toBe(206);
    expect(tail.bytes.equals(big.subarray(big.length - 50))).toBe(true);
    const beyond = await cdn(contentPath(asset), { headers: { Range: `bytes=${big.length}-` } });
    expectError(beyond, 416, "request/range-not-satisfiable");
    expect(beyond.headers.get("content-range")).toBe(`bytes */${big.length}`);
    const stale = await cdn(contentPath(asset), { headers: { Range: "bytes=0-9", "If-Range": '"c-other"' } });
    expect(stale.status).toBe(200);
  });

  it("serves large files as ranged streams from storage", async () => {
    const big = Buffer.concat([await gradientJpeg(64, 64), Buffer.alloc(3 * 1024 * 1024, 7)]);
    const asset = await upload(p, big, "image/jpeg");
    if (asset.status !== "approved") return expect.unreachable(`expected approved, got ${asset.status}`);
    const whole = await cdn(contentPath(asset));
    expect(whole.bytes.equals(big)).toBe(true);
    const part = await cdn(contentPath(asset), { headers: { Range: `bytes=${2 * 1024 * 1024}-${2 * 1024 * 1024 + 9}` } });
    expect(part.status).toBe(206);
    expect(part.bytes.equals(big.subarray(2 * 1024 * 1024, 2 * 1024 * 1024 + 10))).toBe(true);
  });

  it("sends active content (SVG) as a sandboxed attachment and its preview as WebP", async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80"><rect width="120" height="80" fill="#3a7"/><script>alert(1)</script></svg>');
    const asset = await upload(p, svg, "image/svg+xml", { name: "logo.svg" });
    const res = await cdn(contentPath(asset));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="logo.svg"/);
    expect(res.headers.get("content-security-policy")).toContain("sandbox");
    const rendered = await cdn(contentPath(asset, "/imageTransform[width=60,format=png]"));
    expect(rendered.status).toBe(200);
    expect(await imageInfo(rendered.bytes)).toMatchObject({ format: "png", width: 60, height: 40 });
  });
});

describe("CDN: serving rules", () => {
  it("does not serve content that was not retained, nor assets still pending", async () => {
    const dropped = await upload(p, jpeg, "image/jpeg", { keepContentAfterProcessing: "false" });
    expectError(await cdn(contentPath(dropped)), 403, "asset/not-available");
    const pending = await upload(p, jpeg, "image/jpeg", { queue: "true" });
    await db().asset.update({ where: { id: pending.id }, data: { status: "pending" } });
    await eventually(async () => expectError(await cdn(contentPath(pending)), 403, "asset/not-available"));
  });

  it("stops serving within seconds when a warm asset is rejected, held or its content removed, and drops derived copies", async () => {
    for (const change of ["rejected", "held", "removed"] as const) {
      const asset = await upload(p, jpeg, "image/jpeg");
      for (let i = 0; i < 3; i++) expect((await cdn(contentPath(asset))).status).toBe(200);
      expect((await cdn(contentPath(asset, "/imageTransform[width=50]"))).status).toBe(200);
      const derivedDir = path.join(process.env.DATA_DIR as string, "storage", "projects", p.projectId, "derived", asset.id, "cdn");
      // The copy is written after the response (a hidden temp file, then renamed).
      await eventually(async () => expect((await readdir(derivedDir)).filter((name) => !name.startsWith("."))).toHaveLength(1));

      if (change === "rejected") await db().asset.update({ where: { id: asset.id }, data: { status: "rejected" } });
      if (change === "held") await db().asset.update({ where: { id: asset.id }, data: { safetyHold: { reason: "test" } } });
      if (change === "removed") expectOk(await p.client.delete(`/assets/${asset.id}/content`));

      const took = await eventually(async () => {
        expectError(await cdn(contentPath(asset)), 403, "asset/not-available");
        expectError(await cdn(contentPath(asset, "/imageTransform[width=50]")), 403, "asset/not-available");
      }, 3_000);
      expect(took).toBeLessThan(3_000);
      await eventually(async () => expect({ change, left: await readdir(derivedDir).catch(() => []) }).toEqual({ change, left: [] }));
    }
  });

  it("answers 404 for an unavailable private asset", async () => {
    const asset = await upload(p, jpeg, "image/jpeg", { visibility: "private" });
    await db().asset.update({ where: { id: asset.id }, data: { status: "rejected" } });
    await eventually(async () => expectError(await cdn(contentPath(asset), { headers: { "X-Api-Key": p.apiKey } }), 404, "asset/not-found"));
  });
});

describe("CDN: private assets", () => {
  it("needs a signed URL or a key with assets:download; a key without it, of another project or invalid is refused", async () => {
    const asset = await upload(p, jpeg, "image/jpeg", { visibility: "private" });
    expectError(await cdn(contentPath(asset)), 404, "asset/not-found");
    const withKey = await cdn(contentPath(asset), { headers: { "X-Api-Key": p.apiKey } });
    expect(withKey.status).toBe(200);
    expect(withKey.headers.get("cache-control")).toMatch(/^private/);
    const readOnly = await newKey(p.projectId, ["assets:read"]);
    expectError(await cdn(contentPath(asset), { headers: { "X-Api-Key": readOnly.apiKey } }), 403, "auth/insufficient-permissions");
    const other = await newProject();
    expectError(await cdn(contentPath(asset), { headers: { "X-Api-Key": other.apiKey } }), 403, "auth/project-mismatch");
    expectError(await cdn(contentPath(asset), { headers: { "X-Api-Key": "sk_nonsense" } }), 401, "auth/invalid-api-key");
  });

  it("opens through a signed URL until it expires; a changed path, expiry or signature is refused", async () => {
    const asset = await upload(p, jpeg, "image/jpeg", { visibility: "private" });
    const signed = expectOk(await p.client.post(`/assets/${asset.id}/signed-url`, { resource: "content", expiresInSeconds: 60 }));
    expect(signed.url).toMatch(new RegExp(`/cdn/v1/assets/${p.projectId}/${asset.id}/content\\?exp=\\d+&sig=[\\w-]+\\.[\\w-]{43}$`));
    expect(signed.expiresAt).toBeGreaterThan(Date.now() + 55_000);
    expect(signed.expiresAt).toBeLessThanOrEqual(Date.now() + 60_000);
    const ok = await cdn(signed.url);
    expect(ok.status).toBe(200);
    expect(ok.bytes.equals(jpeg)).toBe(true);

    const url = new URL(signed.url);
    const sig = url.searchParams.get("sig") as string;
    const tampered = sig.slice(0, -2) + (sig.endsWith("A") ? "BB" : "AA");
    expectError(await cdn(`${url.origin}${url.pathname}?exp=${url.searchParams.get("exp")}&sig=${tampered}`), 404, "asset/not-found");
    expectError(await cdn(`${url.origin}${url.pathname}?exp=${Number(url.searchParams.get("exp")) + 1000}&sig=${sig}`), 404, "asset/not-found");
    expectError(await cdn(`${url.origin}${url.pathname}/imageTransform[width=10]${url.search}`), 404, "asset/not-found");
    expectError(await cdn(`${url.origin}${url.pathname}?exp=${url.searchParams.get("exp")}`), 404, "asset/not-found");

    const short = expectOk(await p.client.post(`/assets/${asset.id}/signed-url`, { resource: "content", expiresInSeconds: 1 }));
    expect((await cdn(short.url)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const expired = expectError(await cdn(short.url), 404, "asset/not-found");
    expect(expired.message).toMatch(/expired/);
  });

  it("rotates signing keys: new URLs carry the new key id, URLs signed before still open", async () => {
    const asset = await upload(p, jpeg, "image/jpeg", { visibility: "private" });
    const sign = async () => expectOk(await p.client.post(`/assets/${asset.id}/signed-url`, { resource: "content", expiresInSeconds: 600 })).url as string;
    const before = await sign();
    const rotated = await admin("rotate-signing-key");
    expect(rotated.id).toMatch(/^k[a-z0-9]+$/);
    // The server reads keys again within a minute; a signature with an unknown key id makes it read at once.
    const after = await sign();
    expect([rotated.id, before.split("sig=")[1]!.split(".")[0]]).toContain(after.split("sig=")[1]!.split(".")[0]);
    expect((await cdn(before)).status).toBe(200);
    expect((await cdn(after)).status).toBe(200);
  });

  it("signs lens and transform variants, normalizing the transform", async () => {
    const asset = await upload(p, jpeg, "image/jpeg", { visibility: "private" });
    const signed = expectOk(await p.client.post(`/assets/${asset.id}/signed-url`, { resource: "content", expiresInSeconds: 60, transform: "imageTransform[format=png,width=64]" }));
    expect(signed.url).toContain("/content/imageTransform[width=64,format=png]?exp=");
    const res = await cdn(signed.url);
    expect(res.status).toBe(200);
    expect(await imageInfo(res.bytes)).toMatchObject({ format: "png", width: 64, height: 48 });
    const lens = expectOk(await p.client.post(`/assets/${asset.id}/signed-url`, { resource: "content", expiresInSeconds: 60, lens: "thumbnail" }));
    expect(lens.url).toContain("/content/@thumbnail?exp=");
    expect(await imageInfo((await cdn(lens.url)).bytes)).toMatchObject({ format: "webp", width: 256, height: 256 });
  });

  it("validates signed-URL requests", async () => {
    const asset = await upload(p, jpeg, "image/jpeg", { visibility: "private" });
    const sign = (body: unknown) => p.client.post(`/assets/${asset.id}/signed-url`, body);
    expectError(await sign({ resource: "content", expiresInSeconds: 0 }), 400, "request/validation-failed");
    expectError(await sign({ resource: "content", expiresInSeconds: 86_401 }), 400, "request/validation-failed");
    expectError(await sign({ resource: "original", expiresInSeconds: 60 }), 400, "request/validation-failed");
    const both = expectError(await sign({ resource: "content", expiresInSeconds: 60, lens: "thumbnail", transform: "imageTransform[width=10]" }), 400, "request/validation-failed");
    expect(both.message).toMatch(/at most one of lens, transform/);
    expectError(await sign({ resource: "content", expiresInSeconds: 60, lens: "no-such-lens" }), 400, "asset/invalid-transform");
    expectError(await sign({ resource: "content", expiresInSeconds: 60, transform: "resize[10]" }), 400, "asset/invalid-transform");
    expectError(await sign({ resource: "content", expiresInSeconds: 60, transform: "imageTransform[width=0]" }), 400, "asset/invalid-transform-options");
    expect((await sign({ resource: "content", expiresInSeconds: 86_400 })).status).toBe(200);
    expectError(await p.client.post(`/assets/00000000-0000-4000-8000-000000000000/signed-url`, { resource: "content", expiresInSeconds: 60 }), 404, "asset/not-found");
    const other = await newProject();
    expectError(await other.client.post(`/assets/${asset.id}/signed-url`, { resource: "content", expiresInSeconds: 60 }), 403, "auth/project-mismatch");
    const noDownload = await newKey(p.projectId, ["assets:read"]);
    expectError(await noDownload.client.post(`/assets/${asset.id}/signed-url`, { resource: "content", expiresInSeconds: 60 }), 403, "auth/insufficient-permissions");
  });
});
