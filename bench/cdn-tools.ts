import http from "node:http";
import sharp from "sharp";
import type { CrashableServer, RunningServer } from "@/tests/support/test-server";

/** Helpers of bench/cdn.ts: plain HTTP requests, numbers, the test images, CDN URLs. */

// ---- HTTP ----------------------------------------------------------------------------------

export interface Reply {
  status: number;
  contentType: string;
  body: Buffer;
  ms: number;
}

/** Keep-alive connections, enough for the concurrent burst; sequential phases reuse one. */
export const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function request(url: string, options: { method?: "GET" | "POST"; headers?: Record<string, string>; body?: Buffer } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const headers = { ...options.headers };
    if (options.body) headers["Content-Length"] = String(options.body.length);
    const req = http.request(url, { method: options.method ?? "GET", headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), body: Buffer.concat(chunks), ms: performance.now() - started }),
      );
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

/** Status and the start of the body, for failure messages. */
export function describe(reply: Reply): string {
  return `HTTP ${reply.status} ${reply.contentType} ${reply.body.toString("utf8", 0, Math.min(reply.body.length, 300))}`;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// ---- numbers -------------------------------------------------------------------------------

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export const MiB = 1024 * 1024;
export const mib = (bytes: number) => `${(bytes / MiB).toFixed(0)} MiB`;
export const size = (bytes: number) => (bytes < MiB ? kib(bytes) : `${(bytes / MiB).toFixed(1)} MiB`);
export const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

// ---- images --------------------------------------------------------------------------------

/**
 * A deterministic photo-like JPEG (q85): colour gradients, a wave, 4-pixel grain of ±10 and fine
 * noise. 1600×1200 is ~250 KiB (its 800 px WebP ~40 KiB); 6000×4000 is ~3 MiB (under the 10 MiB
 * raw image upload limit).
 */
export async function photoJpeg(width: number, height: number): Promise<Buffer> {
  const grain = 4;
  const amplitude = 10;
  let seed = 12345;
  const next = () => (seed = (seed * 1664525 + 1013904223) >>> 0) >>> 24;
  const gw = Math.ceil(width / grain) + 1;
  const table = new Float32Array(gw * (Math.ceil(height / grain) + 1));
  for (let i = 0; i < table.length; i++) table[i] = (next() / 255 - 0.5) * 2 * amplitude;
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const n = (table[Math.floor(y / grain) * gw + Math.floor(x / grain)] as number) + (next() / 255 - 0.5) * 8;
      const o = (y * width + x) * 3;
      raw[o] = Math.max(0, Math.min(255, (255 * x) / width + n));
      raw[o + 1] = Math.max(0, Math.min(255, (255 * y) / height + n));
      raw[o + 2] = Math.max(0, Math.min(255, 128 + 100 * Math.sin((x + y) / 150) + n));
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
}

// ---- the CDN ------------------------------------------------------------------------------

export interface CdnContext {
  server: RunningServer & CrashableServer;
  apiKey: string;
  projectId: string;
  warnings: string[];
  /** Where CDN URLs point: the main port (default) or the CDN port (server.cdnOrigin). */
  origin?: string;
}

export const RETRIES = Number(process.env.BENCH_CDN_RETRIES ?? 4);
export const RETRY_MS = Number(process.env.BENCH_CDN_RETRY_SECONDS ?? 15) * 1000;

export const cdnUrl = (ctx: CdnContext, assetId: string, selector = "") =>
  `${ctx.origin ?? ctx.server.baseUrl}/cdn/v1/assets/${ctx.projectId}/${assetId}/content${selector ? `/${selector}` : ""}`;

/**
 * GETs until the reply is 200 with `contentType`; the CDN may be mid-change by others, so a failure
 * is printed (status and body) and retried after a pause. Returns the last reply and whether it was good.
 */
export async function getOk(label: string, url: string, contentType: string): Promise<{ reply: Reply; ok: boolean }> {
  let reply: Reply | undefined;
  for (let attempt = 1; attempt <= RETRIES; attempt++) {
    reply = await request(url).catch((error: Error) => ({ status: 0, contentType: "", body: Buffer.from(error.message), ms: 0 }));
    if (reply.status === 200 && reply.contentType === contentType) return { reply, ok: true };
    console.log(`  ! ${label}: ${describe(reply)} (attempt ${attempt}/${RETRIES}${attempt < RETRIES ? `, retrying in ${RETRY_MS / 1000} s` : ""})`);
    if (attempt < RETRIES) await sleep(RETRY_MS);
  }
  return { reply: reply as Reply, ok: false };
}

