import { load, row, type LoadResult } from "@/bench/autocannon";
import type { RunningServer } from "@/tests/support/test-server";

/**
 * Create-asset throughput (text, queue=true) against the framework ceiling: the trivial
 * health-check route handler of the same server, measured in the same run. The two alternate for
 * a few rounds and the median ratio is reported, so drift of this shared machine (disk, CPU steal)
 * hits both sides alike. Target: create-asset ≥ 0.3× the ceiling.
 */
export async function benchCreateAsset(server: RunningServer, apiKey: string, projectId: string) {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
  const ceiling = { url: `${server.baseUrl}/v1/health-check`, connections };
  const create = {
    url: `${server.baseUrl}/v1/projects/${projectId}/assets?queue=true`,
    method: "POST" as const,
    headers: { "X-Api-Key": apiKey, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "bench.txt", content: { plainText: "a short comment to moderate", type: "text/plain" } }),
    connections,
  };

  await load({ ...ceiling, seconds: 2 }); // warm-up: JIT, route compilation, key cache, pools
  await load({ ...create, seconds: 2 });

  console.log(`\nCreate asset (text, queue=true) vs. framework ceiling — ${rounds} rounds of ${seconds} s, ${connections} connections`);
  const results: { ceiling: LoadResult; create: LoadResult; ratio: number }[] = [];
  for (let round = 1; round <= rounds; round++) {
    const c = await load({ ...ceiling, seconds });
    const a = await load({ ...create, seconds });
    results.push({ ceiling: c, create: a, ratio: a.requestsPerSecond / c.requestsPerSecond });
    console.log(row(`  round ${round} GET /health-check`, c));
    console.log(row(`  round ${round} POST .../assets`, a));
  }
  const median = [...results].sort((x, y) => x.ratio - y.ratio)[Math.floor(results.length / 2)] as (typeof results)[number];
  console.log(`ratio create/ceiling per round: ${results.map((r) => `${r.ratio.toFixed(2)}x`).join(", ")}`);
  console.log(row("median round: ceiling", median.ceiling));
  console.log(row("median round: create", median.create));
  console.log(`median ratio create/ceiling: ${median.ratio.toFixed(2)}x (target >= 0.30x) ${median.ratio >= 0.3 ? "OK" : "BELOW TARGET"}`);
  return median;
}
