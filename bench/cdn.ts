import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { INSTALL_HINT, cpuBusy, findExecutable, runWrk, startNginx, startPlainNode, wrkRow, type Nginx, type WrkResult } from "@/bench/cdn-load";
import { RETRIES, RETRY_MS, agent, cdnUrl, describe, getOk, kib, median, photoJpeg, request, size, sleep, type CdnContext } from "@/bench/cdn-tools";
import { benchColdTransforms, benchConcurrentTransforms } from "@/bench/cdn-transforms";
import type { CrashableServer, RunningServer } from "@/tests/support/test-server";

/**
 * The CDN (/cdn/v1, lib/cdn, dispatched below Next.js by server.ts), against baselines measured in
 * the same run:
 * 1. cached derived hits (an 800 px WebP of a 1600×1200 JPEG, ~40 KiB) and the original JPEG
 *    (~250 KiB, memoized) under `wrk -t2 -c32 -d10s`, against nginx serving the same bytes from disk
 *    (worker_processes 1, and auto). Targets: >= 0.5x nginx, at the very least 0.25x. Measured on
 *    the CDN port (the serving processes, lib/server/cdn-processes.ts) and on the main port (the
 *    same handler in the process that also runs Next.js, the pipeline and the executor).
 * 2. cold transform latency (each request a new width) against a bare sharp pipeline doing the same
 *    work in this process on the same bytes (bench/cdn-transforms.ts). Target: <= 1.15x.
 * 3. the server's peak RSS during 50 concurrent cold transforms of a 24 MP JPEG.
 * wrk and nginx come from Debian (`apt-get install wrk nginx-light`); without them part 1 is skipped
 * (or runs without the nginx baseline) with the reason printed.
 * Env: BENCH_CDN_SECONDS (10), BENCH_CDN_ROUNDS (3), BENCH_CDN_CONNECTIONS (32), BENCH_CDN_THREADS (2),
 * BENCH_CDN_COLD_N (12), BENCH_CDN_CONCURRENT (50), BENCH_CDN_RETRIES (4), BENCH_CDN_RETRY_SECONDS (15),
 * BENCH_WRK / BENCH_NGINX (paths of the binaries, default: PATH, then /usr/bin/wrk, /usr/sbin/nginx).
 */
const TARGET = 0.5;
const FLOOR = 0.25;
/** Share of all cores' CPU under which the machine counts as quiet. */
const QUIET = 0.15;
const pct = (share: number) => `${(share * 100).toFixed(0)}%`;

/** Uploads a public, retained JPEG with queue=false; returns its id once approved (null, with the reason printed, otherwise). */
async function uploadApproved(ctx: CdnContext, name: string, bytes: Buffer): Promise<string | null> {
  const url =
    `${ctx.server.baseUrl}/v1/projects/${ctx.projectId}/assets/upload?name=${name}` + `&queue=false&keepContentAfterProcessing=true&visibility=public`;
  for (let attempt = 1; attempt <= RETRIES; attempt++) {
    const reply = await request(url, {
      method: "POST",
      headers: { "X-Api-Key": ctx.apiKey, "X-Service-Upload": "content", "Content-Type": "image/jpeg" },
      body: bytes,
    }).catch((error: Error) => ({ status: 0, contentType: "", body: Buffer.from(error.message), ms: 0 }));
    if (reply.status === 200 || reply.status === 201) {
      let asset = JSON.parse(reply.body.toString("utf8")) as { id: string; status: string };
      const deadline = Date.now() + 120_000;
      while (asset.status === "pending" && Date.now() < deadline) {
        await sleep(250);
        const polled = await request(`${ctx.server.baseUrl}/v1/assets/${asset.id}`, { headers: { "X-Api-Key": ctx.apiKey } });
        if (polled.status === 200) asset = JSON.parse(polled.body.toString("utf8")) as typeof asset;
      }
      if (asset.status === "approved") return asset.id;
      console.log(`  ! upload ${name}: the asset is ${asset.status}, not approved: the CDN would not serve it`);
      return null;
    }
    console.log(`  ! upload ${name}: ${describe(reply)} (attempt ${attempt}/${RETRIES})`);
    if (attempt < RETRIES) await sleep(RETRY_MS);
  }
  return null;
}

export async function benchCdn(server: RunningServer & CrashableServer, apiKey: string, projectId: string) {
  const ctx: CdnContext = { server, apiKey, projectId, warnings: [] };
  const started = performance.now();
  const root = await mkdtemp(path.join(os.tmpdir(), "sieve-bench-cdn-"));
  try {
    console.log(`\nCDN (/cdn/v1, dispatched below Next.js) — baselines measured in this run; ${os.cpus().length} cores shared by server, load generator and baselines`);
    const small = await photoJpeg(1600, 1200);
    const large = await photoJpeg(6000, 4000);
    const smallId = await uploadApproved(ctx, "bench-1600x1200.jpg", small);
    const largeId = await uploadApproved(ctx, "bench-6000x4000.jpg", large);
    console.log(
      `  uploaded (public, approved, content kept): 1600x1200 JPEG ${size(small.length)} ${smallId ?? "FAILED"}; ` +
        `6000x4000 JPEG ${size(large.length)} ${largeId ?? "FAILED"}`,
    );
    await checkQuiet(ctx, "before the hit throughput");
    if (smallId) await benchHits(ctx, smallId, small, root);
    else ctx.warnings.push("hit throughput: skipped, the 1600x1200 upload failed");
    await checkQuiet(ctx, "before the cold transforms");
    const coldSources = [
      ...(largeId ? [{ label: "24 MP JPEG (6000x4000)", assetId: largeId, input: large }] : []),
      ...(smallId ? [{ label: "1.9 MP JPEG (1600x1200)", assetId: smallId, input: small }] : []),
    ];
    await benchColdTransforms(ctx, coldSources);
    // Through the CDN port a serving process asks the main process for the transform (one more hop).
    await benchColdTransforms({ ...ctx, origin: server.cdnOrigin }, coldSources, "CDN port: the main process transforms", 501);
    if (largeId) await benchConcurrentTransforms(ctx, largeId, large);
    else ctx.warnings.push("peak RSS: skipped, the 6000x4000 upload failed");
  } finally {
    agent.destroy();
    await rm(root, { recursive: true, force: true });
  }
  console.log(`\ncdn bench: ${((performance.now() - started) / 1000).toFixed(1)} s; ${ctx.warnings.length === 0 ? "no anomalies" : "ANOMALIES:"}`);
  for (const w of ctx.warnings) console.log(`  ! ${w}`);
}

/**
 * Other work skews every figure: waits (up to 30 s) for the machine to be quiet while the bench is
 * idle — the server may still be finishing an upload's background work — and says what it found.
 */
async function checkQuiet(ctx: CdnContext, when: string) {
  const deadline = Date.now() + 30_000;
  let load = await cpuBusy(ctx.server.pid());
  while (load && load.busy >= QUIET && Date.now() < deadline) load = await cpuBusy(ctx.server.pid());
  if (!load) return;
  const text = `${pct(load.busy)} of the CPU busy ${when} (server ${pct(load.process)}, other processes ${pct(load.busy - load.process)}; this bench idle)`;
  if (load.busy < QUIET) {
    console.log(`  machine quiet: ${text}`);
    return;
  }
  console.log(`  ! MACHINE BUSY after waiting 30 s: ${text}; figures are unreliable`);
  ctx.warnings.push(`machine busy: ${text}`);
}

// ---- 1. cached hits against nginx -----------------------------------------------------------

function verdict(ratio: number): string {
  if (ratio >= TARGET) return "OK";
  return ratio >= FLOOR ? `BELOW TARGET (above the ${FLOOR.toFixed(2)}x floor)` : "BELOW FLOOR";
}

async function benchHits(ctx: CdnContext, assetId: string, original: Buffer, root: string) {
  const wrk = findExecutable("wrk", "/usr/bin/wrk", process.env.BENCH_WRK);
  const nginxBin = findExecutable("nginx", "/usr/sbin/nginx", process.env.BENCH_NGINX);
  const seconds = Number(process.env.BENCH_CDN_SECONDS ?? 10);
  const rounds = Number(process.env.BENCH_CDN_ROUNDS ?? 3);
  const options = { seconds, threads: Number(process.env.BENCH_CDN_THREADS ?? 2), connections: Number(process.env.BENCH_CDN_CONNECTIONS ?? 32) };
  const derivedUrl = cdnUrl(ctx, assetId, "imageTransform[width=800,format=webp]");
  const contentUrl = cdnUrl(ctx, assetId);

  const derived = await getOk("derived warm-up", derivedUrl, "image/webp");
  const content = await getOk("content warm-up", contentUrl, "image/jpeg");
  for (let i = 0; i < 3; i++) await Promise.all([request(derivedUrl), request(contentUrl)]);
  if (!derived.ok || !content.ok) {
    ctx.warnings.push("hit throughput: skipped, the CDN did not answer 200 (see above)");
    return;
  }
  if (!content.reply.body.equals(original)) ctx.warnings.push("/content did not return the uploaded bytes");
  const command = `wrk -t${options.threads} -c${options.connections} -d${seconds}s --latency`;
  console.log(`\nCached hits vs nginx serving the same bytes from disk — ${command}, 2 s warm-up per target, server and wrk share the cores`);
  if (!wrk) {
    console.log(`  SKIPPED: wrk not found (autocannon cannot measure image-sized responses here); ${INSTALL_HINT}`);
    ctx.warnings.push("hit throughput: skipped, wrk is not installed");
    return;
  }
  await writeFile(path.join(root, "derived.webp"), derived.reply.body);
  await writeFile(path.join(root, "original.jpg"), content.reply.body);

  const nginxes: Nginx[] = [];
  const plain = await startPlainNode(path.join(root, "derived.webp"), "image/webp").catch((error: Error) => {
    console.log(`  ! ${error.message}: no plain Node baseline`);
    return null;
  });
  const plainContent = await startPlainNode(path.join(root, "original.jpg"), "image/jpeg").catch(() => null);
  if (!nginxBin) {
    console.log(`  nginx not found: CDN figures without a baseline; ${INSTALL_HINT}`);
    ctx.warnings.push("hit throughput: no nginx baseline (nginx not installed)");
  } else {
    for (const workers of ["1", "auto"] as const) {
      try {
        nginxes.push(await startNginx(nginxBin, root, workers));
      } catch (error) {
        console.log(`  ! ${(error as Error).message}`);
        ctx.warnings.push(`nginx (worker_processes ${workers}) did not start`);
      }
    }
  }
  try {
    const cores = os.cpus().length;
    // The CDN port (serving processes) when they run; the main port (beside Next.js) always.
    const cdnPort = (url: string) => url.replace(ctx.server.baseUrl, ctx.server.cdnOrigin);
    const hasCdnPort = (await request(cdnPort(derivedUrl)).catch(() => null))?.status === 200;
    if (!hasCdnPort) ctx.warnings.push("hit throughput: the CDN port does not answer (CDN_PROCESSES=0?): main port only");
    const targets = (file: string, plainUrl: string | undefined, cdn: string) => [
      ...nginxes.map((n) => ({ name: n.workers === "1" ? "nginx (1 worker)" : `nginx (auto: ${cores} workers)`, url: `${n.baseUrl}/${file}` })),
      ...(plainUrl ? [{ name: "plain Node (res.end)", url: plainUrl }] : []),
      ...(hasCdnPort ? [{ name: "CDN port", url: cdnPort(cdn) }] : []),
      { name: "CDN main port", url: cdn },
    ];
    await compare(ctx, wrk, `derived ${kib(derived.reply.body.length)} image/webp, imageTransform[width=800,format=webp]`, targets("derived.webp", plain?.baseUrl, derivedUrl), options, rounds);
    await compare(ctx, wrk, `original /content ${kib(content.reply.body.length)} image/jpeg (1600x1200, from memory)`, targets("original.jpg", plainContent?.baseUrl, contentUrl), options, 1);
  } finally {
    for (const n of nginxes) await n.stop();
    await plain?.stop();
    await plainContent?.stop();
  }
}

const isCdn = (name: string) => name.startsWith("CDN");

async function compare(ctx: CdnContext, wrk: string, title: string, targets: { name: string; url: string }[], options: { seconds: number; threads: number; connections: number }, rounds: number) {
  console.log(`\n  ${title} — ${rounds} round${rounds === 1 ? "" : "s"} of ${options.seconds} s`);
  const runs = new Map<string, WrkResult[]>(targets.map((t) => [t.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const target of targets) {
      try {
        if (round === 1) await runWrk(wrk, target.url, { ...options, seconds: 2 });
        const result = await runWrk(wrk, target.url, options);
        runs.get(target.name)?.push(result);
        console.log(wrkRow(`  round ${round} ${target.name}`, result));
        if (result.non2xx > 0 || result.socketErrors > 0) ctx.warnings.push(`${target.name} ${title.split(" ")[0]}: ${result.non2xx} non-2xx, ${result.socketErrors} socket errors`);
      } catch (error) {
        console.log(`  ! ${target.name}: ${(error as Error).message}`);
        ctx.warnings.push(`${target.name}: wrk failed`);
      }
    }
  }
  for (const cdnName of [...runs.keys()].filter(isCdn)) {
    const cdn = runs.get(cdnName) ?? [];
    if (cdn.length < rounds) console.log(`  ! only ${cdn.length} of ${rounds} ${cdnName} runs succeeded: no ratio`);
    for (const [name, results] of runs) {
      if (isCdn(name) || results.length === 0 || cdn.length !== results.length) continue;
      const ratios = cdn.map((c, i) => c.requestsPerSecond / (results[i] as WrkResult).requestsPerSecond);
      const m = median(ratios);
      const perRound = rounds > 1 ? ` (per round ${ratios.map((r) => `${r.toFixed(2)}x`).join(", ")})` : "";
      // The targets are against nginx; plain Node is the ceiling any one Node process can reach here.
      const target = name.startsWith("nginx") ? ` (target >= ${TARGET.toFixed(2)}x, at least ${FLOOR.toFixed(2)}x) ${verdict(m)}` : " (no target; informational)";
      console.log(`  ratio ${cdnName}/${name}: ${m.toFixed(2)}x${rounds > 1 ? " median" : ""}${perRound}${target}`);
      if (name.startsWith("nginx") && m < FLOOR) ctx.warnings.push(`${title.split(" ")[0]}: ${cdnName} at ${m.toFixed(2)}x ${name}, under the ${FLOOR}x floor`);
    }
  }
}
