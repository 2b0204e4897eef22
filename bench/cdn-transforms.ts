import sharp from "sharp";
import { cdnUrl, describe, getOk, median, mib, request, size, sleep, type CdnContext, type Reply } from "@/bench/cdn-tools";
import { memoryOf, resetPeak } from "@/tests/support/process-memory";

/**
 * Parts 2 and 3 of bench/cdn.ts: cold transforms (each request a width not asked before, so
 * neither memory nor a stored derived copy can answer) against bare sharp, and the server's peak
 * RSS during a burst of them.
 */
const TARGET = 1.15;
/** lib/cdn/transform.ts's default (CDN_MAX_TRANSFORM_INPUT_PIXELS); it only refuses, it changes no work. */
const LIMIT_INPUT_PIXELS = 100_000_000;

const selector = (width: number) => `imageTransform[width=${width},format=webp]`;

/**
 * What lib/cdn/transform.ts does for `imageTransform[width=W,format=webp]` on a JPEG, minus its
 * header check (`metadata()` first, < 0.5 ms): EXIF orientation, resize with fit cover (sharp
 * derives the height), WebP at the default quality 80 and default effort.
 */
async function bareTransform(input: Buffer, width: number): Promise<Buffer> {
  return sharp(input, { limitInputPixels: LIMIT_INPUT_PIXELS }).autoOrient().resize({ width, fit: "cover" }).webp({ quality: 80 }).toBuffer();
}

async function timedBare(input: Buffer, width: number): Promise<{ ms: number; data: Buffer }> {
  const started = performance.now();
  const data = await bareTransform(input, width);
  return { ms: performance.now() - started, data };
}

interface Source {
  label: string;
  assetId: string;
  input: Buffer;
}

const stats = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return `p50 ${median(ms).toFixed(1).padStart(7)} ms   min ${(sorted[0] ?? NaN).toFixed(1).padStart(7)} ms   max ${(sorted[sorted.length - 1] ?? NaN).toFixed(1).padStart(7)} ms`;
};

/** `firstWidth`: widths no earlier run asked for, so every request is cold. */
export async function benchColdTransforms(ctx: CdnContext, sources: Source[], where = "main port", firstWidth = 401) {
  const n = Number(process.env.BENCH_CDN_COLD_N ?? 12);
  const widths = Array.from({ length: n }, (_, i) => firstWidth + i);
  console.log(
    `\nCold transform latency vs bare sharp (${where}) — sequential, one keep-alive connection; widths ${widths[0]}..${widths[n - 1]} → WebP, ` +
      `each new (nothing cached); the bare pipeline runs in this process on the same bytes, alternating with the CDN request`,
  );
  console.log(`  bare: sharp(input, {limitInputPixels}).autoOrient().resize({width, fit: "cover"}).webp({quality: 80}).toBuffer()`);
  for (const source of sources) {
    // Warm-up, untimed: first use of the pipeline on both sides.
    let warm = true;
    for (const width of [firstWidth - 11, firstWidth - 10]) {
      warm &&= (await getOk(`${source.label} warm-up`, cdnUrl(ctx, source.assetId, selector(width)), "image/webp")).ok;
      await bareTransform(source.input, width);
    }
    if (!warm) {
      console.log(`\n  ${source.label}: SKIPPED, the CDN does not transform it (see above)`);
      ctx.warnings.push(`cold ${source.label}: skipped, warm-up transforms failed`);
      continue;
    }
    const pid = ctx.server.pid();
    const rssBefore = await memoryOf(pid);
    await resetPeak(pid);
    const cdn: number[] = [];
    const bare: number[] = [];
    let identical = 0;
    let failed = 0;
    for (const [i, width] of widths.entries()) {
      const url = cdnUrl(ctx, source.assetId, selector(width));
      let reply: Reply | undefined;
      let local: { ms: number; data: Buffer } | undefined;
      const runCdn = async () => {
        reply = await request(url);
        // A failure (the CDN may be mid-change) is printed and retried later; the retry is still cold.
        if (reply.status !== 200 || reply.contentType !== "image/webp") {
          console.log(`  ! ${source.label} width ${width}: ${describe(reply)}`);
          const retried = await getOk(`${source.label} width ${width} retry`, url, "image/webp");
          reply = retried.ok ? retried.reply : undefined;
        }
      };
      const runBare = async () => {
        local = await timedBare(source.input, width);
      };
      if (i % 2 === 0) {
        await runCdn();
        await runBare();
      } else {
        await runBare();
        await runCdn();
      }
      if (!reply || !local) {
        failed++;
        continue;
      }
      cdn.push(reply.ms);
      bare.push(local.ms);
      if (reply.body.equals(local.data)) identical++;
    }
    const rssAfter = await memoryOf(pid);
    const ratio = median(cdn) / median(bare);
    console.log(`\n  ${source.label} (${size(source.input.length)} stored) — ${cdn.length} of each after 2 warm-up pairs`);
    console.log(`  ${"CDN (HTTP, cold)".padEnd(32)} ${stats(cdn)}`);
    console.log(`  ${"bare sharp (this process)".padEnd(32)} ${stats(bare)}`);
    console.log(`  CDN overhead p50: ${(median(cdn) - median(bare)).toFixed(1)} ms; outputs byte-identical: ${identical}/${cdn.length}`);
    console.log(`  ratio CDN/bare (medians): ${ratio.toFixed(2)}x (target <= ${TARGET.toFixed(2)}x) ${ratio <= TARGET ? "OK" : "MISS"}`);
    console.log(
      `  server RSS before ${mib(rssBefore.rssBytes)}, peak during these sequential transforms ${mib(rssAfter.peakRssBytes)} (+${mib(rssAfter.peakRssBytes - rssBefore.rssBytes)})`,
    );
    if (failed > 0) ctx.warnings.push(`cold ${source.label}: ${failed} requests failed after retries`);
    if (identical < cdn.length) ctx.warnings.push(`cold ${source.label}: ${cdn.length - identical} CDN outputs differ from the bare pipeline's (not the same work?)`);
    if (!(ratio <= TARGET)) ctx.warnings.push(`cold ${source.label}: CDN/bare ${ratio.toFixed(2)}x over the ${TARGET}x target`);
  }
}

export async function benchConcurrentTransforms(ctx: CdnContext, assetId: string, input: Buffer) {
  const count = Number(process.env.BENCH_CDN_CONCURRENT ?? 50);
  console.log(`\nPeak RSS during ${count} concurrent cold transforms of the 24 MP JPEG (${size(input.length)}) → WebP, ${count} distinct widths`);
  const pid = ctx.server.pid();
  let first = 601;
  for (let attempt = 1; attempt <= 3; attempt++, first += count) {
    const widths = Array.from({ length: count }, (_, i) => first + i);
    await sleep(3000); // let the previous phase's garbage and background work settle
    const before = await memoryOf(pid);
    await resetPeak(pid);
    const started = performance.now();
    const replies = await Promise.all(
      widths.map((width) =>
        request(cdnUrl(ctx, assetId, selector(width))).catch((error: Error) => ({ status: 0, contentType: "", body: Buffer.from(error.message), ms: NaN })),
      ),
    );
    const wall = performance.now() - started;
    const after = await memoryOf(pid);
    const good = replies.filter((r) => r.status === 200 && r.contentType === "image/webp");
    console.log(`  server RSS before ${mib(before.rssBytes)} (peak since start ${mib(before.peakRssBytes)})`);
    console.log(`  peak RSS during ${mib(after.peakRssBytes)} (+${mib(after.peakRssBytes - before.rssBytes)} over before); RSS after ${mib(after.rssBytes)}`);
    console.log(
      `  wall ${(wall / 1000).toFixed(2)} s (${((count / wall) * 1000).toFixed(1)} transforms/s); latency ${stats(replies.map((r) => r.ms))}; ` +
        `${good.length}/${count} answered 200 image/webp`,
    );
    if (good.length === count) {
      await bareBurst(input, widths);
      return;
    }
    for (const r of replies.filter((r) => !good.includes(r)).slice(0, 3)) console.log(`  ! ${describe(r)}`);
    if (attempt < 3) console.log(`  retrying with new widths in 15 s (attempt ${attempt + 1}/3)`);
    await sleep(15_000);
  }
  ctx.warnings.push(`concurrent transforms: not all ${count} requests answered 200 image/webp (see above)`);
}

/** Baseline for the burst: the same work, all at once, with bare sharp in this process (sharing one input buffer). */
async function bareBurst(input: Buffer, widths: number[]) {
  const before = await memoryOf(process.pid);
  await resetPeak(process.pid);
  const started = performance.now();
  await Promise.all(widths.map((width) => bareTransform(input, width)));
  const wall = performance.now() - started;
  const after = await memoryOf(process.pid);
  console.log(
    `  baseline, bare sharp in this process, same ${widths.length} at once: wall ${(wall / 1000).toFixed(2)} s, ` +
      `peak RSS +${mib(after.peakRssBytes - before.rssBytes)} over before`,
  );
}
