// A bench-only preload for the server process (bench/run.ts passes `--import ./bench/server-probe.mjs`
// when SIEVE_BENCH_PROBE_PORT is set): a control endpoint that sends plain Standard-Webhooks-signed
// POSTs from inside the server process, so the delivery bench can compare deliveries with raw sends
// made by the very same process (Next.js loaded, its async hooks on, the same event loop), as issue
// #10 asks. Plain JavaScript: it loads before tsx. Never part of `npm start`.
import { spawn } from "node:child_process";
import cluster from "node:cluster";
import crypto from "node:crypto";
import { writeFileSync } from "node:fs";
import http from "node:http";
import inspector from "node:inspector";
import { PerformanceObserver } from "node:perf_hooks";
import { isMainThread } from "node:worker_threads";
import pg from "pg";
import { Pool } from "undici";

const port = Number(process.env.SIEVE_BENCH_PROBE_PORT);

/** Runs `count` calls of `post` with `inFlight` at once; returns calls per second. */
async function rate(count, inFlight, post) {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      next++;
      await post();
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return count / ((performance.now() - started) / 1000);
}

/** The webhook id (fresh unless given), a timestamp, and the Standard Webhooks signature of `body` with them. */
function signed(secret, body, id = crypto.randomUUID()) {
  const timestamp = Math.floor(Date.now() / 1000);
  return { id, timestamp, signature: crypto.createHmac("sha256", secret).update(`${id}.${timestamp}.${body}`).digest("base64") };
}

/** One signed POST of `body` through undici's pool, with handlers that do nothing (the least a client does). */
function undiciSignedPost(pool, target, secret, body, id) {
  const { id: webhookId, timestamp, signature } = signed(secret, body, id);
  const headers = ["content-type", "application/json", "webhook-id", webhookId, "webhook-timestamp", String(timestamp), "webhook-signature", `v1,${signature}`];
  return new Promise((resolve, reject) => {
    pool.dispatch(
      { origin: target.origin, path: target.pathname, method: "POST", headers, body },
      { onRequestStart() {}, onResponseStart() {}, onResponseData() {}, onResponseEnd: resolve, onResponseError: (_controller, error) => reject(error) },
    );
  });
}

/**
 * `count` Standard-Webhooks-signed POSTs of `body` to `url`, keep-alive, `inFlight` at once; returns
 * requests per second. The delivery bench's baseline, run here and in the bench process alike.
 */
export async function plainSignedPosts(url, body, count, inFlight) {
  const secret = crypto.randomBytes(32);
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: inFlight });
  const perSecond = await rate(count, inFlight, () => {
    const { id, timestamp, signature } = signed(secret, body);
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: "POST",
          agent,
          headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": `v1,${signature}` },
        },
        (res) => res.resume().on("end", resolve).on("error", reject),
      );
      req.on("error", reject);
      req.end(body);
    });
  });
  agent.destroy();
  return perSecond;
}

/**
 * The same POSTs through undici's pool (the client deliveries use: lib/net/webhook-pools.ts), with
 * the body signed per request alike: the bench's informational second baseline.
 */
export async function plainSignedPostsUndici(url, body, count, inFlight) {
  const secret = crypto.randomBytes(32);
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: inFlight });
  const perSecond = await rate(count, inFlight, () => undiciSignedPost(pool, target, secret, body));
  await pool.destroy();
  return perSecond;
}

/**
 * The least work any delivery design does, written here apart from lib/connectors: the events
 * `ids` are read from PostgreSQL in pages of `pageSize`, one after another while the sends run (as
 * the dispatcher's passes overlap the attempts); each becomes the webhook envelope {id, type,
 * createdAt, projectId, data}, signed (Standard Webhooks) and POSTed through undici's pool,
 * `inFlight` at once. Nothing is written. Returns events per second.
 */
export async function readAndSendEvents(databaseUrl, url, ids, inFlight, pageSize) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const secret = crypto.randomBytes(32);
  const target = new URL(url);
  const pool = new Pool(target.origin, { connections: inFlight });
  const readPage = (from) =>
    db
      .query(
        `SELECT id, type, severity::text AS severity, title, description, asset_id, asset, facts, created_at, project_id
           FROM events WHERE id = ANY ($1::uuid[]) ORDER BY txid, seq`,
        [ids.slice(from, from + pageSize)],
      )
      .then((result) => result.rows);
  const post = (row) => {
    const body = JSON.stringify({
      id: row.id,
      type: row.type,
      createdAt: row.created_at.getTime(),
      projectId: row.project_id,
      data: { severity: row.severity, title: row.title, description: row.description, assetId: row.asset_id, asset: row.asset, facts: row.facts },
    });
    return undiciSignedPost(pool, target, secret, body, row.id);
  };
  try {
    const started = performance.now();
    // Pages are read one after another into `rows` while the workers send what has arrived.
    const rows = [];
    let read = false;
    const wake = [];
    const wakeAll = () => wake.splice(0).forEach((resolve) => resolve());
    const reading = (async () => {
      try {
        for (let from = 0; from < ids.length; from += pageSize) {
          rows.push(...(await readPage(from)));
          wakeAll();
        }
      } finally {
        read = true;
        wakeAll();
      }
    })();
    let next = 0;
    const worker = async () => {
      for (;;) {
        if (next < rows.length) await post(rows[next++]);
        else if (read) return;
        else await new Promise((resolve) => wake.push(resolve));
      }
    };
    await Promise.all([reading, ...Array.from({ length: inFlight }, worker)]);
    if (rows.length !== ids.length) throw new Error(`read ${rows.length} of ${ids.length} events`);
    return ids.length / ((performance.now() - started) / 1000);
  } finally {
    await pool.destroy();
    await db.end();
  }
}

/**
 * A CPU profile of this process over a window the bench chooses (BENCH_PROFILE_DIR: each delivery
 * burst and undici baseline alone, without start-up), written to `<file>.cpuprofile` (Chrome
 * DevTools opens it). With BENCH_PROFILE_TOOL=perf, a system-wide `perf record -a -g` over the same
 * window instead, to `<file>.perf.data` (every process: this one, PostgreSQL and the receiver; run
 * the server with SIEVE_SERVER_NODE_ARGS=--perf-basic-prof for JavaScript frames).
 */
let profiler = null;
function post(session, method, params) {
  return new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));
}
async function profile(command, file) {
  if (command === "start") {
    if (process.env.BENCH_PROFILE_TOOL === "perf") {
      const perf = spawn("perf", ["record", "-a", "-g", "-F", "2999", "-o", `${file}.perf.data`], { stdio: "ignore" });
      await new Promise((resolve) => setTimeout(resolve, 500)); // perf's start-up
      profiler = { perf, file: `${file}.perf.data` };
      return {};
    }
    const session = new inspector.Session();
    session.connect();
    await post(session, "Profiler.enable");
    await post(session, "Profiler.setSamplingInterval", { interval: 200 });
    await post(session, "Profiler.start");
    profiler = { session, file: `${file}.cpuprofile` };
    return {};
  }
  const { session, perf, file: written } = profiler;
  profiler = null;
  if (perf) {
    perf.kill("SIGINT");
    await new Promise((resolve) => perf.on("exit", resolve));
  } else {
    const { profile: result } = await post(session, "Profiler.stop");
    session.disconnect();
    writeFileSync(written, JSON.stringify(result));
  }
  return { file: written };
}

// Only in the server's main thread of its main process: its CDN serving processes (cluster workers)
// inherit this preload, and so do worker threads started with the process's execArgv (OCR), which
// crashed on the port already taken.
if (cluster.isPrimary && isMainThread && Number.isInteger(port) && port > 0) {
  // Garbage collection in this process (ms, every kind) since the last `/loop` call, and the share of
  // that time its event loop was busy: the delivery bench reports them beside the CPU (survivors of
  // a burst cost scavenges; a loop idle while deliveries wait means they wait on the receiver or
  // the database, not on this process's CPU).
  let gcMs = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  }).observe({ entryTypes: ["gc"] });
  let loopSince = performance.eventLoopUtilization();
  const takeLoopFigures = () => {
    const ms = gcMs;
    gcMs = 0;
    const loop = performance.eventLoopUtilization();
    const loopBusy = performance.eventLoopUtilization(loop, loopSince).utilization;
    loopSince = loop;
    return { ms, loopBusy };
  };
  const control = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const request = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      const { url, body, count, inFlight, client } = request;
      const work =
        req.url === "/loop"
          ? Promise.resolve(takeLoopFigures())
          : req.url === "/profile"
          ? profile(request.command, request.file)
          : req.url === "/read-and-send"
            ? readAndSendEvents(process.env.DATABASE_URL, url, request.ids, inFlight, request.pageSize).then((rate) => ({ rate }))
            : (client === "undici" ? plainSignedPostsUndici : plainSignedPosts)(url, body, count, inFlight).then((rate) => ({ rate }));
      work.then(
        (result) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(result)),
        (error) => res.writeHead(500, { "content-type": "text/plain" }).end(String(error?.message ?? error)),
      );
    });
  });
  control.listen(port, "127.0.0.1");
  control.unref();
}
