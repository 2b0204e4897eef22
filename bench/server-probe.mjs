// A bench-only preload for the server process (bench/run.ts passes `--import ./bench/server-probe.mjs`
// when SIEVE_BENCH_PROBE_PORT is set): a control endpoint that sends plain Standard-Webhooks-signed
// POSTs from inside the server process, so the delivery bench can compare deliveries with raw sends
// made by the very same process (Next.js loaded, its async hooks on, the same event loop), as issue
// #10 asks. Plain JavaScript: it loads before tsx. Never part of `npm start`.
import cluster from "node:cluster";
import crypto from "node:crypto";
import http from "node:http";
import { isMainThread } from "node:worker_threads";
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

/** A fresh webhook id and timestamp, and the Standard Webhooks signature of `body` with them. */
function signed(secret, body) {
  const id = crypto.randomUUID();
  const timestamp = Math.floor(Date.now() / 1000);
  return { id, timestamp, signature: crypto.createHmac("sha256", secret).update(`${id}.${timestamp}.${body}`).digest("base64") };
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
  const perSecond = await rate(count, inFlight, () => {
    const { id, timestamp, signature } = signed(secret, body);
    const headers = ["content-type", "application/json", "webhook-id", id, "webhook-timestamp", String(timestamp), "webhook-signature", `v1,${signature}`];
    return new Promise((resolve, reject) => {
      pool.dispatch(
        { origin: target.origin, path: target.pathname, method: "POST", headers, body },
        { onRequestStart() {}, onResponseStart() {}, onResponseData() {}, onResponseEnd: resolve, onResponseError: (_controller, error) => reject(error) },
      );
    });
  });
  await pool.destroy();
  return perSecond;
}

// Only in the server's main thread of its main process: its CDN serving processes (cluster workers)
// inherit this preload, and so do worker threads started with the process's execArgv (OCR), which
// crashed on the port already taken.
if (cluster.isPrimary && isMainThread && Number.isInteger(port) && port > 0) {
  const control = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const { url, body, count, inFlight, client } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      (client === "undici" ? plainSignedPostsUndici : plainSignedPosts)(url, body, count, inFlight).then(
        (rate) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ rate })),
        (error) => res.writeHead(500, { "content-type": "text/plain" }).end(String(error?.message ?? error)),
      );
    });
  });
  control.listen(port, "127.0.0.1");
  control.unref();
}
