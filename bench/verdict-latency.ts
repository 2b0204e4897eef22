import { createReadStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { makeVideo } from "@/tests/support/media-fixtures";
import type { RunningServer } from "@/tests/support/test-server";

/**
 * Moderation verdict latency, all requests sequential on one keep-alive connection:
 * - text and image: `queue=false` (the response carries the decision) against the same request with
 *   `queue=true` (create only, answered `pending`). Each create-only asset is left to be decided
 *   (untimed polling) before the next timed request, so no background classification overlaps a
 *   timed request of either kind; the two kinds alternate so drift of the machine hits both alike.
 *   Targets: text overhead (p50 verdict − p50 create-only) ≤ 25 ms; image verdict p50 ≤ 60 ms
 *   (issue #13 req 4).
 * - video: a 60 s 640×360 H.264+AAC file uploaded raw with `queue=true`, polled until decided;
 *   reported as pipeline seconds per minute of video.
 * Sizes via BENCH_VERDICT_TEXT_N / _IMAGE_N / _WARMUP_TEXT / _WARMUP_IMAGE / BENCH_VIDEO_SECONDS.
 */
const TEXT_TARGET_OVERHEAD_MS = 25;
const IMAGE_TARGET_P50_MS = 60;
const IMAGE_WIDTH = 1152;
const IMAGE_HEIGHT = 864;

interface Reply {
  status: number;
  body: {
    id?: string;
    status?: string;
    type?: string;
    report?: {
      notes?: { unsupported?: string } | null;
      media?: { sampledFrames?: number; audioTranscribed?: boolean; segments?: unknown[] } | null;
    } | null;
  } & Record<string, unknown>;
  ms: number;
}

/** One connection for everything: requests are strictly sequential. */
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function request(
  url: string,
  options: { method: "GET" | "POST"; headers: Record<string, string>; body?: string | Buffer; file?: { path: string; size: number } },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const headers = { ...options.headers };
    if (options.body !== undefined) headers["Content-Length"] = String(Buffer.byteLength(options.body));
    if (options.file) headers["Content-Length"] = String(options.file.size);
    const req = http.request(url, { method: options.method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: Reply["body"];
        try {
          body = JSON.parse(text) as Reply["body"];
        } catch {
          body = { raw: text };
        }
        resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - started });
      });
    });
    req.on("error", reject);
    if (options.file) createReadStream(options.file.path).on("error", reject).pipe(req);
    else req.end(options.body);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

interface Series {
  ms: number[];
  statuses: Map<string, number>;
}
const newSeries = (): Series => ({ ms: [], statuses: new Map() });

function record(series: Series, reply: Reply) {
  series.ms.push(reply.ms);
  const key = reply.status >= 200 && reply.status < 300 ? String(reply.body.status) : `HTTP ${reply.status}`;
  series.statuses.set(key, (series.statuses.get(key) ?? 0) + 1);
}

function stats(series: Series) {
  const sorted = [...series.ms].sort((a, b) => a - b);
  return { n: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted[sorted.length - 1] ?? NaN };
}

function statusText(series: Series): string {
  return [...series.statuses].map(([k, v]) => `${k} ${v}`).join(", ");
}

function line(name: string, series: Series): string {
  const s = stats(series);
  return `${name.padEnd(34)} n ${String(s.n).padStart(4)}   p50 ${s.p50.toFixed(1).padStart(7)} ms   p95 ${s.p95
    .toFixed(1)
    .padStart(7)} ms   max ${s.max.toFixed(1).padStart(7)} ms   ${statusText(series)}`;
}

function verdictWarnings(label: string, verdict: Series, created: Series): string[] {
  const warnings: string[] = [];
  const pending = verdict.statuses.get("pending") ?? 0;
  if (pending > 0) warnings.push(`${label}: ${pending} queue=false responses were still pending (decision wait timed out)`);
  for (const [k, v] of verdict.statuses) if (k.startsWith("HTTP")) warnings.push(`${label}: ${v} queue=false responses ${k}`);
  const rejected = verdict.statuses.get("rejected") ?? 0;
  if (rejected > 0) warnings.push(`${label}: ${rejected} benign queue=false uploads were rejected`);
  for (const [k, v] of created.statuses) if (k !== "pending") warnings.push(`${label}: ${v} queue=true responses were ${k} (expected pending)`);
  return warnings;
}

// ---- content -------------------------------------------------------------------------------

const SUBJECTS = ["The community garden", "Our book club", "The new bakery on Elm Street", "This week's hiking trip", "The school science fair", "The morning train", "My grandmother's recipe", "The local library", "The jazz concert", "The weekend farmers market"];
const SENTENCES = [
  "was a pleasant surprise and everyone seemed to enjoy the afternoon together.",
  "had fresh bread, ripe tomatoes and a friendly crowd that stayed until sunset.",
  "reminded me how much I like slow mornings with a cup of tea and a good novel.",
  "could use a few more benches, but the volunteers did a wonderful job overall.",
  "started a little late because of the rain, although nobody really minded.",
  "is open again after the renovation, with brighter rooms and longer hours.",
  "taught the children how to plant seeds and water them every other day.",
  "offered a short walk along the river followed by sandwiches and lemonade.",
  "will meet again next Thursday at seven, and new members are always welcome.",
  "had a lovely view of the hills, and the path was easy enough for families.",
];

/** A benign, distinct text of roughly 300–500 bytes. */
function benignText(i: number): string {
  const parts = [`Note ${i}:`];
  for (let k = 0; k < 5; k++) {
    parts.push(`${SUBJECTS[(i * 7 + k * 3) % SUBJECTS.length]} ${SENTENCES[(i * 3 + k * 5 + (i >> 3)) % SENTENCES.length]}`);
  }
  return parts.join(" ");
}

/** Shared pixel noise (±20); each image reads it from a different offset. */
let noiseTable: Int8Array | undefined;

/** A distinct 1152×864 JPEG: seeded gradient, a few blobs and noise (no two alike, nothing cacheable). */
async function benignImage(seed: number): Promise<Buffer> {
  let s = (seed * 2654435761 + 12345) >>> 0;
  const rand = () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const w = IMAGE_WIDTH;
  const h = IMAGE_HEIGHT;
  if (!noiseTable) {
    noiseTable = new Int8Array(w * h + 65_537);
    for (let i = 0; i < noiseTable.length; i++) noiseTable[i] = Math.round((rand() - 0.5) * 40);
  }
  const noise = noiseTable;
  const offset = Math.floor(rand() * 65_536);
  const raw = Buffer.alloc(w * h * 3);
  const c0 = [rand() * 255, rand() * 255, rand() * 255] as const;
  const c1 = [rand() * 255, rand() * 255, rand() * 255] as const;
  const angle = rand() * Math.PI * 2;
  const dx = Math.cos(angle) / w;
  const dy = Math.sin(angle) / h;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const t = Math.min(1, Math.max(0, 0.5 + (x - w / 2) * dx + (y - h / 2) * dy));
      const n = noise[offset + y * w + x]!;
      const o = (y * w + x) * 3;
      raw[o] = Math.max(0, Math.min(255, c0[0] + (c1[0] - c0[0]) * t + n));
      raw[o + 1] = Math.max(0, Math.min(255, c0[1] + (c1[1] - c0[1]) * t + n));
      raw[o + 2] = Math.max(0, Math.min(255, c0[2] + (c1[2] - c0[2]) * t + n));
    }
  }
  // Blobs: discs blended half-way with their colour, only over their bounding boxes.
  for (let k = 0; k < 6; k++) {
    const bx = rand() * w;
    const by = rand() * h;
    const r = 40 + rand() * 160;
    const c = [rand() * 255, rand() * 255, rand() * 255] as const;
    for (let y = Math.max(0, Math.floor(by - r)); y < Math.min(h, Math.ceil(by + r)); y++) {
      for (let x = Math.max(0, Math.floor(bx - r)); x < Math.min(w, Math.ceil(bx + r)); x++) {
        if ((x - bx) ** 2 + (y - by) ** 2 >= r * r) continue;
        const o = (y * w + x) * 3;
        raw[o] = (raw[o]! + c[0]) / 2;
        raw[o + 1] = (raw[o + 1]! + c[1]) / 2;
        raw[o + 2] = (raw[o + 2]! + c[2]) / 2;
      }
    }
  }
  return sharp(raw, { raw: { width: w, height: h, channels: 3 } }).jpeg({ quality: 85 }).toBuffer();
}

/**
 * Waits (untimed) until no asset on the server is pending: the create-asset bench before this one
 * leaves a backlog of queue=true assets that the executor would still be classifying during our
 * timed requests. Returns the backlog size seen first and the seconds waited.
 */
async function drainBacklog(timeoutMs: number): Promise<{ initial: number; remaining: number; seconds: number }> {
  const { sqlPool } = await import("@/lib/db/client");
  const count = async () => Number((await sqlPool().query<{ n: string }>(`SELECT count(*) AS n FROM assets WHERE status = 'pending'`)).rows[0]?.n ?? 0);
  const started = performance.now();
  const initial = await count();
  let remaining = initial;
  while (remaining > 0 && performance.now() - started < timeoutMs) {
    await sleep(250);
    remaining = await count();
  }
  return { initial, remaining, seconds: (performance.now() - started) / 1000 };
}

// ---- bench ---------------------------------------------------------------------------------

export async function benchVerdictLatency(server: RunningServer, apiKey: string, projectId: string) {
  const dir = await mkdtemp(path.join(os.tmpdir(), "sieve-bench-video-"));
  try {
    await run(server, apiKey, projectId, dir);
  } finally {
    agent.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}

async function run(server: RunningServer, apiKey: string, projectId: string, dir: string) {
  const textN = Number(process.env.BENCH_VERDICT_TEXT_N ?? 200);
  const textWarmup = Number(process.env.BENCH_VERDICT_WARMUP_TEXT ?? 20);
  const imageN = Number(process.env.BENCH_VERDICT_IMAGE_N ?? 60);
  const imageWarmup = Number(process.env.BENCH_VERDICT_WARMUP_IMAGE ?? 8);
  const videoSeconds = Number(process.env.BENCH_VIDEO_SECONDS ?? 60);

  const createUrl = (queue: boolean) => `${server.baseUrl}/v1/projects/${projectId}/assets?queue=${queue}`;
  const jsonHeaders = { "X-Api-Key": apiKey, "Content-Type": "application/json" };
  const post = (queue: boolean, body: string) => request(createUrl(queue), { method: "POST", headers: jsonHeaders, body });
  const getAsset = (id: string) => request(`${server.baseUrl}/v1/assets/${id}`, { method: "GET", headers: { "X-Api-Key": apiKey } });

  /** Untimed: waits until the asset has left `pending`; returns the final asset (or null on timeout). */
  async function settle(id: string | undefined, timeoutMs: number, intervalMs = 5): Promise<Reply | null> {
    if (!id) return null;
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const reply = await getAsset(id);
      if (reply.status === 200 && reply.body.status !== "pending") return reply;
      await sleep(intervalMs);
    }
    return null;
  }
  let unsettled = 0;

  /** One timed pair, order alternating; the create-only asset is settled before going on. */
  async function pair(i: number, bodyFor: (queue: boolean) => string, verdict: Series | null, created: Series | null) {
    const runCreate = async () => {
      const reply = await post(true, bodyFor(true));
      if (created) record(created, reply);
      if (!(await settle(reply.body.id, 30_000))) unsettled++;
    };
    const runVerdict = async () => {
      const reply = await post(false, bodyFor(false));
      if (verdict) record(verdict, reply);
    };
    if (i % 2 === 0) {
      await runCreate();
      await runVerdict();
    } else {
      await runVerdict();
      await runCreate();
    }
  }

  const started = performance.now();
  // Fixtures are made while the previous bench's backlog drains (both untimed), never during timed requests.
  const imageTotal = imageWarmup + imageN;
  const images: string[] = [];
  const imagesReady = (async () => {
    for (let i = 0; i < imageTotal * 2; i++) images.push((await benignImage(i + 1)).toString("base64"));
  })();
  const genStart = performance.now();
  const videoReady = makeVideo(dir, { seconds: videoSeconds, width: 640, height: 360, withAudio: true }).then((file) => ({
    file,
    genMs: performance.now() - genStart,
  }));
  videoReady.catch(() => {}); // awaited below; avoid an unhandled rejection meanwhile
  const backlog = await drainBacklog(120_000);
  await imagesReady;
  const video = await videoReady.catch((error: unknown) => error as Error);
  console.log(`\nVerdict latency — sequential, 1 connection (keep-alive), one request in flight at a time`);
  console.log(`  create-only (queue=true) assets are left to be decided, untimed, before the next timed request`);
  console.log(
    `  first waited ${backlog.seconds.toFixed(1)} s for the ${backlog.initial} assets left pending by the previous bench to be decided` +
      (backlog.remaining > 0 ? ` (GAVE UP, ${backlog.remaining} still pending: figures below run against that backlog)` : ""),
  );

  // Text.
  let textSeq = 0;
  const textBody = () => JSON.stringify({ name: `note-${textSeq}.txt`, content: { type: "text/plain", plainText: benignText(textSeq++) } });
  for (let i = 0; i < textWarmup; i++) await pair(i, textBody, null, null);
  const textVerdict = newSeries();
  const textCreate = newSeries();
  for (let i = 0; i < textN; i++) await pair(i, textBody, textVerdict, textCreate);
  const textBytes = Buffer.byteLength(benignText(0));
  console.log(`\nText (~${textBytes} B, benign, each different) — ${textN} of each after ${textWarmup} warm-up pairs`);
  console.log(line("  queue=false (verdict)", textVerdict));
  console.log(line("  queue=true  (create-only)", textCreate));
  const overhead = stats(textVerdict).p50 - stats(textCreate).p50;
  console.log(
    `  verdict overhead p50 (verdict − create-only): ${overhead.toFixed(1)} ms (target <= ${TEXT_TARGET_OVERHEAD_MS} ms) ${overhead <= TEXT_TARGET_OVERHEAD_MS ? "PASS" : "MISS"}`,
  );

  // Image: generated before the timed phases (sharp in this process would compete with the server).
  const meanKiB = images.reduce((sum, b) => sum + (b.length * 3) / 4, 0) / images.length / 1024;
  let imageSeq = 0;
  const imageBody = () => {
    const n = imageSeq++;
    return JSON.stringify({ name: `photo-${n}.jpg`, content: { type: "image/jpeg", base64: images[n] } });
  };
  for (let i = 0; i < imageWarmup; i++) await pair(i, imageBody, null, null);
  const imageVerdict = newSeries();
  const imageCreate = newSeries();
  for (let i = 0; i < imageN; i++) await pair(i, imageBody, imageVerdict, imageCreate);
  images.length = 0;
  console.log(
    `\nImage (JPEG ${IMAGE_WIDTH}x${IMAGE_HEIGHT}, ~${meanKiB.toFixed(0)} KiB, base64 JSON, each different) — ${imageN} of each after ${imageWarmup} warm-up pairs`,
  );
  console.log(line("  queue=false (verdict)", imageVerdict));
  console.log(line("  queue=true  (create-only)", imageCreate));
  const imageP50 = stats(imageVerdict).p50;
  console.log(`  image verdict p50: ${imageP50.toFixed(1)} ms (target <= ${IMAGE_TARGET_P50_MS} ms) ${imageP50 <= IMAGE_TARGET_P50_MS ? "PASS" : "MISS"}`);
  console.log(
    `  verdict overhead p50 (verdict − create-only): ${(imageP50 - stats(imageCreate).p50).toFixed(1)} ms (no target; informational)`,
  );

  // Video.
  const videoWarnings: string[] = [];
  {
    if (video instanceof Error) throw video;
    const { file, genMs } = video;
    const { size } = await stat(file);
    const upload = await request(`${server.baseUrl}/v1/projects/${projectId}/assets/upload?queue=true&name=bench-video.mp4`, {
      method: "POST",
      headers: { "X-Api-Key": apiKey, "X-Service-Upload": "content", "Content-Type": "video/mp4" },
      file: { path: file, size },
    });
    const uploadedAt = performance.now();
    console.log(
      `\nVideo (${videoSeconds} s, 640x360 H.264 + AAC, ${(size / 1024 / 1024).toFixed(1)} MiB, generated in ${(genMs / 1000).toFixed(1)} s during the backlog wait) — raw upload, queue=true, polled every 100 ms`,
    );
    console.log(`  upload response: HTTP ${upload.status} ${upload.body.status ?? ""} in ${upload.ms.toFixed(0)} ms`);
    if (upload.status !== 201 && upload.status !== 200) {
      console.log(`  video: upload failed, no pipeline figure: ${JSON.stringify(upload.body).slice(0, 300)}`);
      videoWarnings.push(`video: upload failed (HTTP ${upload.status})`);
    } else {
      const final = await settle(upload.body.id, 120_000, 100);
      const pipelineS = (performance.now() - uploadedAt) / 1000;
      const perMinute = pipelineS / (videoSeconds / 60);
      if (!final) {
        console.log(`  video: still pending after ${pipelineS.toFixed(1)} s (gave up), no pipeline figure`);
        videoWarnings.push("video: not decided within 120 s");
      } else {
        const unsupported = final.body.report?.notes?.unsupported;
        const label = unsupported ? `  [video analysis not implemented: report says "${unsupported}"]` : "";
        const media = final.body.report?.media;
        const mediaText = media
          ? `; report: ${media.sampledFrames ?? "?"} frames sampled, audio transcribed ${media.audioTranscribed ? "yes" : "no"}, ${media.segments?.length ?? 0} segments`
          : "; report has no media section";
        console.log(`  final status: ${final.body.status} (type ${final.body.type})${mediaText}`);
        console.log(`  pipeline: ${pipelineS.toFixed(2)} s from upload response to final status = ${perMinute.toFixed(2)} s per minute of video${label}`);
        if (unsupported) videoWarnings.push("video: figure measures an empty pipeline (no video classifier), not video analysis");
      }
    }
  }

  const warnings = [...verdictWarnings("text", textVerdict, textCreate), ...verdictWarnings("image", imageVerdict, imageCreate), ...videoWarnings];
  if (backlog.remaining > 0) warnings.push(`${backlog.remaining} assets of the previous bench still pending after 120 s`);
  if (unsettled > 0) warnings.push(`${unsettled} create-only assets were not decided within 30 s`);
  console.log(`\nverdict bench: ${((performance.now() - started) / 1000).toFixed(1)} s; ${warnings.length === 0 ? "no anomalies" : "ANOMALIES:"}`);
  for (const w of warnings) console.log(`  ! ${w}`);
}
