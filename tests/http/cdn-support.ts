import sharp from "sharp";
import { expect } from "vitest";
import { baseUrl, expectOk, type ApiResponse, type TestProject } from "./support";
import { rawUpload } from "./assets-create-support";

/** Helpers of the CDN tests (cdn*.test.ts): uploads that end approved, CDN requests, decoded images. */

export interface CdnResponse extends ApiResponse {
  bytes: Buffer;
}

/** GET (or HEAD) a CDN path below {cdn_url}. */
export async function cdn(path: string, options: { method?: string; headers?: Record<string, string> } = {}): Promise<CdnResponse> {
  const url = path.startsWith("http") ? path : `${baseUrl}/cdn/v1${path}`;
  const response = await fetch(url, { method: options.method ?? "GET", headers: options.headers });
  const bytes = Buffer.from(await response.arrayBuffer());
  let body: unknown = undefined;
  if ((response.headers.get("content-type") ?? "").startsWith("application/json")) body = JSON.parse(bytes.toString("utf8"));
  return { status: response.status, headers: response.headers, body, text: bytes.toString("utf8"), bytes };
}

/** A colourful JPEG (a gradient, so encoders have something to do). */
export async function gradientJpeg(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      raw[i] = (x * 255) / width;
      raw[i + 1] = (y * 255) / height;
      raw[i + 2] = 128;
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
}

/** Uploads bytes with queue=false and content kept; returns the decided asset. */
export async function upload(
  p: TestProject,
  bytes: Buffer,
  contentType: string,
  query: Record<string, string> = {},
): Promise<Record<string, any>> {
  const res = await rawUpload(p, bytes, {
    query: { name: "file", queue: "false", keepContentAfterProcessing: "true", visibility: "public", ...query },
    headers: { "X-Service-Upload": "content", "Content-Type": contentType },
  });
  return expectOk(res);
}

export async function imageInfo(bytes: Buffer): Promise<{ format: string; width: number; height: number; pages: number }> {
  const m = await sharp(bytes, { animated: true }).metadata();
  return { format: m.format as string, width: m.width as number, height: (m.pageHeight ?? m.height) as number, pages: m.pages ?? 1 };
}

export function contentPath(asset: Record<string, any>, suffix = ""): string {
  return `/assets/${asset.projectId}/${asset.id}/content${suffix}`;
}

/** Polls until `check` passes or `ms` elapse (status changes reach the CDN "within seconds"). */
export async function eventually(check: () => Promise<unknown>, ms = 5_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    try {
      await check();
      return Date.now() - started;
    } catch (error) {
      if (Date.now() - started > ms) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

export function expectCdnHeaders(res: CdnResponse, contentType: string) {
  expect(res.headers.get("content-type")).toBe(contentType);
  expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  expect(res.headers.get("etag")).toMatch(/^"[a-z]-[A-Za-z0-9_-]+"$/);
  expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  expect(Number(res.headers.get("content-length"))).toBe(res.bytes.length);
}
