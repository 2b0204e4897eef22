import { execFileSync } from "node:child_process";
import http from "node:http";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { db } from "@/lib/db/client";
import { forgedHeaderPng } from "@/tests/support/png-fixtures";
import { admin, expectError, expectOk, newProject, type TestProject } from "./support";
import { cdn, contentPath, eventually, expectCdnHeaders, gradientJpeg, imageInfo, upload } from "./cdn-support";

/**
 * The CDN serving processes (lib/server/cdn-processes.ts): the same CDN on a port of their own,
 * served by child processes of the server. Every rule holds there as on the main port.
 */
const cdnOrigin = inject("cdnOrigin");
const onCdnPort = (path: string) => `${cdnOrigin}/cdn/v1${path}`;

/** The serving processes: children of the server running scripts/cdn-process.ts. */
function servingProcesses(): number[] {
  const out = execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(inject("serverPid"))]).toString();
  return out
    .split("\n")
    .filter((line) => line.includes("cdn-process"))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}

/** A GET on a connection of its own: connections are what the processes share out, round-robin. */
function freshGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("latin1") }));
      })
      .on("error", reject);
  });
}

let p: TestProject;
let jpeg: Buffer;

beforeAll(async () => {
  p = await newProject();
  jpeg = await gradientJpeg(640, 480);
});

describe("CDN port (serving processes)", () => {
  it("serves the same bytes and headers as the main port, transforms included", async () => {
    const asset = await upload(p, jpeg, "image/jpeg");
    const main = await cdn(contentPath(asset));
    const own = await cdn(onCdnPort(contentPath(asset)));
    expect(own.status).toBe(200);
    expect(own.bytes.equals(jpeg)).toBe(true);
    expectCdnHeaders(own, "image/jpeg");
    expect(own.headers.get("etag")).toBe(main.headers.get("etag"));
    expect(own.headers.get("cache-control")).toBe("public, max-age=5, must-revalidate");
    expectError(await cdn(onCdnPort(contentPath(asset)), { headers: { Range: `bytes=${jpeg.length}-` } }), 416, "request/range-not-satisfiable");

    // Repeated (the hot path of each process), then decoded: real format and size.
    for (let i = 0; i < 4; i++) {
      const webp = await cdn(onCdnPort(contentPath(asset, "/imageTransform[width=200,format=webp]")));
      expect(webp.status).toBe(200);
      expect(await imageInfo(webp.bytes)).toMatchObject({ format: "webp", width: 200, height: 150 });
    }
    expectError(await cdn(onCdnPort(contentPath(asset, "/imageTransform[width=abc]"))), 400, "asset/invalid-transform-options");
  });

  it("a burst of identical cold transforms over several processes gets identical bytes and one stored copy", async () => {
    const asset = await upload(p, jpeg, "image/jpeg");
    const url = onCdnPort(contentPath(asset, "/imageTransform[width=333,format=webp]"));
    const replies = await Promise.all(Array.from({ length: 12 }, () => freshGet(url)));
    expect(replies.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(new Set(replies.map((r) => r.body)).size).toBe(1);
    const derivedDir = path.join(process.env.DATA_DIR as string, "storage", "projects", p.projectId, "derived", asset.id, "cdn");
    await eventually(async () => expect((await readdir(derivedDir)).filter((name) => !name.startsWith("."))).toHaveLength(1));
  });

  it("a transform refused by the main process reaches the client as the spec's error, fast (decompression bomb)", async () => {
    const lax = await newProject();
    await admin("set-moderation", "--project", lax.projectId, "--unanalysable", "approve");
    const bomb = await upload(lax, forgedHeaderPng(50_000, 50_000), "image/png");
    const started = Date.now();
    const body = expectError(await cdn(onCdnPort(contentPath(bomb, "/imageTransform[width=100]"))), 500, "asset/transform-failed");
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(body.message).toMatch(/50000/);
  });

  it("every process serves a lens's version N+1 as soon as it is saved, and refuses it once inactive", async () => {
    const lens = (version: number, width: number, active = true) => ({
      json: { identifier: "cdnport", name: "CDN port", type: "image", version, active, transforms: [{ type: "imageTransform", options: { width, format: "png" } }] },
    });
    const asset = await upload(p, jpeg, "image/jpeg");
    const url = onCdnPort(contentPath(asset, "/@cdnport"));
    const widthOf = async () => {
      const res = await freshGet(url);
      return res.status === 200 ? (await imageInfo(Buffer.from(res.body, "latin1"))).width : res.status;
    };
    expectOk(await p.client.request("PUT", "/lenses/cdnport", lens(1, 100)));
    // Warm in every process (connections are shared out round-robin), hot path included.
    for (let i = 0; i < 8; i++) expect(await widthOf()).toBe(100);

    expectOk(await p.client.request("PUT", "/lenses/cdnport", lens(2, 50)));
    const took = await eventually(async () => {
      for (let i = 0; i < 6; i++) expect(await widthOf()).toBe(50);
    }, 2_000);
    expect(took).toBeLessThan(1_000);
    expectOk(await p.client.request("PUT", "/lenses/cdnport", lens(3, 50, false)));
    await eventually(async () => {
      for (let i = 0; i < 6; i++) expect(await widthOf()).toBe(400);
    }, 2_000);
  });

  it("answers anything but the CDN with the spec's error body", async () => {
    const res = await fetch(`${cdnOrigin}/v1/health-check`);
    const body = (await res.json()) as Record<string, unknown>;
    expect(res.status).toBe(404);
    expect(body).toMatchObject({ code: "request/route-not-found", traceId: res.headers.get("x-request-id") });
  });

  it("private assets open with a signed URL or a key with assets:download, as on the main port", async () => {
    const asset = await upload(p, jpeg, "image/jpeg", { visibility: "private" });
    expectError(await cdn(onCdnPort(contentPath(asset))), 404, "asset/not-found");
    expect((await cdn(onCdnPort(contentPath(asset)), { headers: { "X-Api-Key": p.apiKey } })).status).toBe(200);
    const signed = expectOk(await p.client.post(`/assets/${asset.id}/signed-url`, { resource: "content", expiresInSeconds: 60, transform: "imageTransform[width=64,format=png]" }));
    const url = new URL(signed.url as string);
    const res = await cdn(`${cdnOrigin}${url.pathname}${url.search}`);
    expect(res.status).toBe(200);
    expect(await imageInfo(res.bytes)).toMatchObject({ format: "png", width: 64 });
    expect(res.headers.get("cache-control")).toMatch(/^private/);
    url.searchParams.set("exp", String(Number(url.searchParams.get("exp")) + 1000));
    expectError(await cdn(`${cdnOrigin}${url.pathname}${url.search}`), 404, "asset/not-found");
  });

  it("stops serving a warm asset within seconds of its rejection, and its derived copies go", async () => {
    const asset = await upload(p, jpeg, "image/jpeg");
    const derived = onCdnPort(contentPath(asset, "/imageTransform[width=60]"));
    // Enough requests that every serving process has answered (and memoized) both URLs.
    for (let i = 0; i < 12; i++) {
      expect((await freshGet(onCdnPort(contentPath(asset)))).status).toBe(200);
      expect((await freshGet(derived)).status).toBe(200);
    }
    const derivedDir = path.join(process.env.DATA_DIR as string, "storage", "projects", p.projectId, "derived", asset.id, "cdn");
    await eventually(async () => expect((await readdir(derivedDir)).filter((name) => !name.startsWith(".")).length).toBeGreaterThan(0));

    await db().asset.update({ where: { id: asset.id }, data: { status: "rejected" } });
    const took = await eventually(async () => {
      for (let i = 0; i < 6; i++) {
        for (const url of [onCdnPort(contentPath(asset)), derived]) {
          const res = await freshGet(url);
          expect({ status: res.status, code: (JSON.parse(res.body) as { code: string }).code }).toEqual({ status: 403, code: "asset/not-available" });
        }
      }
    }, 3_000);
    expect(took).toBeLessThan(3_000);
    await eventually(async () => expect(await readdir(derivedDir).catch(() => [])).toEqual([]));
  });

  it("a serving process that dies is replaced, and the port keeps serving", async () => {
    const asset = await upload(p, jpeg, "image/jpeg");
    const before = servingProcesses();
    expect(before.length).toBeGreaterThan(0);
    process.kill(before[0] as number, "SIGKILL");
    await eventually(async () => {
      const now = servingProcesses();
      expect(now).not.toContain(before[0]);
      expect(now).toHaveLength(before.length);
    }, 20_000);
    for (let i = 0; i < 6; i++) expect((await freshGet(onCdnPort(contentPath(asset)))).status).toBe(200);
  });
});
