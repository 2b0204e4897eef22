import crypto from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { FIRST_ATTEMPTS_PER_CONNECTOR } from "@/lib/connectors/delivery/first-attempts";
import { sqlPool } from "@/lib/db/client";
import { recordEvents, type NewEvent } from "@/lib/events/record";
import { percentile, timedCall, verdict } from "@/bench/http-timing";
import { plainSignedPosts } from "@/bench/server-probe.mjs";
import { readFile, readdir } from "node:fs/promises";
import type { CrashableServer, RunningServer } from "@/tests/support/test-server";

/**
 * The events feed and webhook delivery, against baselines measured in the same run:
 * 1. Feed: p50 latency of a page of 100 (`GET /v1/projects/:id/events?after=…&limit=100`, read
 *    sequentially from the start of the feed) with 100k events in the table, beside the
 *    health check on the same connection. Target: p50 <= 20 ms.
 * 2. Delivery rate: N events committed at once, delivered to a local receiver by the real path
 *    (dispatcher → first attempt in process → signed POST; retries would go through the Inngest
 *    function), events/s from the commit to the
 *    last receipt; beside plain Standard-Webhooks-signed POSTs of the same bodies to the same
 *    receiver, with as many in flight as first attempts may run at once, sent from the server
 *    process itself (bench/server-probe.mjs; the issue's "from the same process", node:http's client)
 *    and, for information, the same through undici (the client deliveries use) and from this process
 *    (which also runs the receiver). Target: >= 0.5x the first.
 * 3. Lag: one event at a time on an idle server, from its commit to its receipt. Target: p50 <= 250 ms.
 * The server needs SIEVE_ALLOW_PRIVATE_NETWORKS=true (bench/run.ts sets it) to deliver to 127.0.0.1.
 * Env: BENCH_EVENTS_TOTAL (100000), BENCH_FEED_PAGES (300), BENCH_DELIVERY_N (1000), BENCH_LAG_N (100),
 * BENCH_EVENTS_PARTS (feed,delivery).
 */
const FEED_TARGET_MS = 20;
const RATE_TARGET = 0.5;
const LAG_TARGET_MS = 250;
/** Attempts in flight at once for one connector: the baseline gets as many. */
const DELIVERY_IN_FLIGHT = Number(process.env.BENCH_DELIVERY_IN_FLIGHT ?? FIRST_ATTEMPTS_PER_CONNECTOR);
const START_CURSOR = Buffer.from("v1.0.0").toString("base64url");

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

const call = (url: string, init?: Parameters<typeof timedCall>[2]) => timedCall(agent, url, init);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function benchEvent(projectId: string, i: number): NewEvent {
  return {
    projectId,
    type: i % 10 === 0 ? "asset.flagged" : "asset.uploaded",
    title: `Bench event ${i}`,
    description: "An event written by the benchmark",
    facts: [
      { key: "asset-name", value: `file-${i}.txt` },
      { key: "asset-type", value: "text" },
      { key: "file-format", value: "txt" },
    ],
  };
}

async function insertEvents(projectId: string, from: number, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1000) {
    const batch = Array.from({ length: Math.min(1000, count - i) }, (_, k) => benchEvent(projectId, from + i + k));
    await recordEvents(sqlPool(), batch);
  }
}

async function benchFeed(server: RunningServer, apiKey: string, projectId: string) {
  const total = Number(process.env.BENCH_EVENTS_TOTAL ?? 100_000);
  const pages = Number(process.env.BENCH_FEED_PAGES ?? 300);
  const started = performance.now();
  await insertEvents(projectId, 0, total);
  console.log(`\nEvents feed — ${total} events inserted in ${((performance.now() - started) / 1000).toFixed(1)} s; ${pages} pages of 100`);
  const headers = { "X-Api-Key": apiKey };
  let cursor = START_CURSOR;
  const feed: number[] = [];
  const ceiling: number[] = [];
  for (let i = 0; i < pages + 20; i++) {
    const page = await call(`${server.baseUrl}/v1/projects/${projectId}/events?after=${cursor}&limit=100`, { headers });
    const health = await call(`${server.baseUrl}/v1/health-check`);
    if (page.status !== 200) throw new Error(`feed answered ${page.status}: ${page.body.slice(0, 200)}`);
    const body = JSON.parse(page.body) as { events: unknown[]; cursor: string };
    if (body.events.length !== 100) throw new Error(`a feed page had ${body.events.length} events, expected 100`);
    cursor = body.cursor;
    if (i >= 20) {
      feed.push(page.ms); // the first 20 warm up
      ceiling.push(health.ms);
    }
  }
  const p50 = percentile(feed, 50);
  console.log(`  feed page of 100   p50 ${p50.toFixed(1)} ms   p95 ${percentile(feed, 95).toFixed(1)} ms`);
  console.log(`  GET /health-check  p50 ${percentile(ceiling, 50).toFixed(1)} ms (ratio ${(p50 / percentile(ceiling, 50)).toFixed(1)}x)`);
  console.log(`  feed p50 ${p50.toFixed(1)} ms (target <= ${FEED_TARGET_MS} ms) ${verdict(p50 <= FEED_TARGET_MS)}`);
}

/** A receiver that records when each webhook-id arrived. */
async function startReceiver() {
  const arrivals = new Map<string, number>();
  let waiter: { count: number; resolve: () => void } | undefined;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const id = String(req.headers["webhook-id"] ?? "");
      if (id && !arrivals.has(id)) arrivals.set(id, performance.now());
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      if (waiter && arrivals.size >= waiter.count) waiter.resolve();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const waitFor = (count: number, timeoutMs: number) =>
    new Promise<boolean>((resolve) => {
      if (arrivals.size >= count) return resolve(true);
      const timer = setTimeout(() => resolve(false), timeoutMs);
      waiter = { count, resolve: () => (clearTimeout(timer), resolve(true)) };
    });
  return { url, arrivals, waitFor, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * The same plain POSTs made inside the server process (bench/server-probe.mjs): issue #10 compares
 * delivery with "plain signed HTTP POSTs from the same process". Null when the probe is absent.
 */
async function plainSignedPostsInServer(
  probeUrl: string,
  url: string,
  body: string,
  count: number,
  inFlight: number,
  client: "node:http" | "undici" = "node:http",
): Promise<number | null> {
  try {
    const res = await fetch(`${probeUrl}/plain-posts`, { method: "POST", body: JSON.stringify({ url, body, count, inFlight, client }) });
    if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { rate: number }).rate;
  } catch (error) {
    console.log(`  ! the server-process baseline failed: ${(error as Error).message}`);
    return null;
  }
}

/**
 * CPU time (ms) used so far by the server process and by all PostgreSQL processes, from /proc
 * (null elsewhere): per delivery it is a figure that other work on the machine barely moves.
 */
async function cpuMs(serverPid: number): Promise<{ server: number; postgres: number } | null> {
  const ticks = async (pid: string) => {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), ticks: Number(fields[11]) + Number(fields[12]) };
  };
  try {
    const server = (await ticks(String(serverPid))).ticks;
    let postgres = 0;
    for (const pid of (await readdir("/proc")).filter((name) => /^\d+$/.test(name))) {
      const process = await ticks(pid).catch(() => null);
      if (process?.name === "postgres") postgres += process.ticks;
    }
    return { server: server * 10, postgres: postgres * 10 }; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

function cpuPer(before: { server: number; postgres: number } | null, after: { server: number; postgres: number } | null, n: number): string {
  if (!before || !after) return "";
  const ms = (x: number) => (x / n).toFixed(3);
  return `   CPU per request: server ${ms(after.server - before.server)} ms, PostgreSQL ${ms(after.postgres - before.postgres)} ms`;
}

async function commitEvents(projectId: string, from: number, count: number): Promise<{ ids: string[]; committedAt: number }> {
  const client = await sqlPool().connect();
  try {
    await client.query("BEGIN");
    await recordEvents(client, Array.from({ length: count }, (_, k) => benchEvent(projectId, from + k)));
    const { rows } = await client.query<{ id: string }>("SELECT id FROM events WHERE txid = pg_current_xact_id()::text::bigint");
    await client.query("COMMIT");
    return { ids: rows.map((r) => r.id), committedAt: performance.now() };
  } finally {
    client.release();
  }
}

/** What the database says of an event's delivery (for a failure message). */
async function deliveryState(eventId: string): Promise<string> {
  const { rows } = await sqlPool().query(
    `SELECT d.status, d.attempts, d.queued_at, d.last_error, d.created_at,
            (SELECT json_agg(a) FROM connector_delivery_attempts a WHERE a.delivery_id = d.id) AS log
       FROM connector_deliveries d WHERE d.event_id = $1`,
    [eventId],
  );
  return rows.length === 0 ? "no delivery was created" : JSON.stringify(rows);
}

async function benchDelivery(server: RunningServer & CrashableServer, apiKey: string, projectId: string, probeUrl: string) {
  const n = Number(process.env.BENCH_DELIVERY_N ?? 1000);
  const lagN = Number(process.env.BENCH_LAG_N ?? 100);
  const receiver = await startReceiver();
  try {
    const created = await call(`${server.baseUrl}/v1/projects/${projectId}/connectors`, {
      method: "POST",
      headers: { "X-Api-Key": apiKey, "Content-Type": "application/json" },
      body: JSON.stringify({ type: "webhook", name: "bench receiver", url: receiver.url }),
    });
    if (created.status !== 200 && created.status !== 201) throw new Error(`connector creation answered ${created.status}: ${created.body}`);

    // Warm-up: the function's route, pools and JIT.
    const warm = await commitEvents(projectId, 0, 20);
    if (!(await receiver.waitFor(warm.ids.length, 60_000))) throw new Error("warm-up deliveries did not arrive within 60 s");

    // 3. Lag, idle: one event at a time.
    const lags: number[] = [];
    for (let i = 0; i < lagN; i++) {
      // Counted before the commit: the delivery may arrive before commitEvents returns.
      const before = receiver.arrivals.size;
      const { ids, committedAt } = await commitEvents(projectId, 1000 + i, 1);
      if (!(await receiver.waitFor(before + 1, 30_000))) throw new Error(`event ${ids[0]} was not delivered within 30 s: ${await deliveryState(ids[0] as string)}`);
      lags.push((receiver.arrivals.get(ids[0] as string) as number) - committedAt);
      await sleep(20);
    }

    // 2. Rate: n events committed in one transaction, then everything delivered.
    const sample = JSON.stringify({ id: crypto.randomUUID(), type: "asset.uploaded", createdAt: Date.now(), projectId, data: benchEvent(projectId, 0) });
    const already = receiver.arrivals.size;
    const cpuBefore = await cpuMs(server.pid());
    const burst = await commitEvents(projectId, 10_000, n);
    const delivered = await receiver.waitFor(already + n, 600_000);
    const lastArrival = Math.max(...burst.ids.map((id) => receiver.arrivals.get(id) ?? 0));
    const deliveryRate = n / ((lastArrival - burst.committedAt) / 1000);
    const cpuAfter = await cpuMs(server.pid());
    const plainHere = await plainSignedPosts(receiver.url, sample, n, DELIVERY_IN_FLIGHT);
    const cpuBeforePlain = await cpuMs(server.pid());
    const plainInServer = await plainSignedPostsInServer(probeUrl, receiver.url, sample, n, DELIVERY_IN_FLIGHT);
    const cpuAfterPlain = await cpuMs(server.pid());
    const undiciInServer = await plainSignedPostsInServer(probeUrl, receiver.url, sample, n, DELIVERY_IN_FLIGHT, "undici");
    const cpuAfterUndici = await cpuMs(server.pid());

    console.log(`\nWebhook delivery — ${n} events at once; plain signed POSTs with ${DELIVERY_IN_FLIGHT} in flight as the baselines`);
    if (!delivered) console.log(`  ! only ${receiver.arrivals.size - already} of ${n} arrived within 10 min`);
    console.log(`  delivered                                   ${deliveryRate.toFixed(0)} events/s${cpuPer(cpuBefore, cpuAfter, n)}`);
    console.log(
      `  plain signed POSTs from the server process  ${plainInServer === null ? "n/a (no probe)" : `${plainInServer.toFixed(0)} requests/s${cpuPer(cpuBeforePlain, cpuAfterPlain, n)}`}`,
    );
    console.log(
      `  the same through undici, server process     ${undiciInServer === null ? "n/a (no probe)" : `${undiciInServer.toFixed(0)} requests/s${cpuPer(cpuAfterPlain, cpuAfterUndici, n)}`} (deliveries' client: informational)`,
    );
    console.log(`  plain signed POSTs from the bench process   ${plainHere.toFixed(0)} requests/s (the receiver's process: informational)`);
    if (plainInServer !== null) {
      const ratio = deliveryRate / plainInServer;
      console.log(`  ratio ${ratio.toFixed(2)}x against the server process (target >= ${RATE_TARGET}x) ${verdict(ratio >= RATE_TARGET)}`);
    }
    if (undiciInServer !== null) console.log(`  ratio ${(deliveryRate / undiciInServer).toFixed(2)}x against undici in the server process (informational)`);
    console.log(`  ratio ${(deliveryRate / plainHere).toFixed(2)}x against the bench process (informational)`);
    const p50 = percentile(lags, 50);
    console.log(`  lag commit → receipt, idle, ${lagN} events: p50 ${p50.toFixed(0)} ms   p99 ${percentile(lags, 99).toFixed(0)} ms (target p50 <= ${LAG_TARGET_MS} ms) ${verdict(p50 <= LAG_TARGET_MS)}`);
  } finally {
    await receiver.close();
  }
}

/** Each part in a project of its own, so the feed's 100k events never reach the receiver. */
export async function benchEvents(server: RunningServer & CrashableServer, probeUrl: string) {
  const { createProject } = await import("@/lib/projects/provision");
  const { createApiKey } = await import("@/lib/auth/api-keys");
  const permissions = ["events:read", "connectors:write", "connectors:read"] as const;
  const project = async (name: string) => {
    const { projectId } = await createProject({ name, permissions: [...permissions] });
    const key = await createApiKey({ projectId, permissions: [...permissions], rateLimitPerSecond: 0 });
    return { projectId, apiKey: key.apiKey };
  };
  const parts = (process.env.BENCH_EVENTS_PARTS ?? "feed,delivery").split(",");
  if (parts.includes("feed")) {
    const feed = await project("bench feed");
    await benchFeed(server, feed.apiKey, feed.projectId);
  }
  if (parts.includes("delivery")) {
    const delivery = await project("bench delivery");
    await benchDelivery(server, delivery.apiKey, delivery.projectId, probeUrl);
  }
}
