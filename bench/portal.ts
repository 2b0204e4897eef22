import http from "node:http";
import { randomUUID } from "node:crypto";
import { sqlPool } from "@/lib/db/client";
import { percentile, timedCall, verdict } from "@/bench/http-timing";
import type { RunningServer } from "@/tests/support/test-server";

/**
 * The reviewer portal (issue #11), with 10k assets in the project (1k of them in the queue):
 * 1. Queue page load: the server-rendered page `/projects/:id/review` (session cookie) followed by
 *    its first data `GET /api/portal/projects/:id/queue?limit=25`, back to back, as a browser does.
 *    p50 beside the health check on the same connection. Target: p50 <= 300 ms.
 * 2. Review decision latency: `POST /v1/assets/:id/review {"decision":"approve"}` on queued
 *    (rejected) assets, one at a time; p50 beside `GET /v1/assets/:id` of the same assets.
 *    Target: p50 <= 30 ms.
 * Env: BENCH_PORTAL_ASSETS (10000), BENCH_PORTAL_LOADS (60), BENCH_PORTAL_DECISIONS (200).
 */
const PAGE_TARGET_MS = 300;
const DECISION_TARGET_MS = 30;
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

const call = (url: string, init?: Parameters<typeof timedCall>[2]) => timedCall(agent, url, init);


const REPORT = JSON.stringify({
  categories: {
    sexual: { status: "evaluated", score: 0.02, likelihood: "very-unlikely" },
    violence: { status: "evaluated", score: 0.91, likelihood: "very-likely" },
    "self-harm": { status: "evaluated", score: 0.01, likelihood: "very-unlikely" },
    harassment: { status: "evaluated", score: 0.4, likelihood: "possible" },
    hate: { status: "evaluated", score: 0.03, likelihood: "very-unlikely" },
    "criminal-activity": { status: "evaluated", score: 0.05, likelihood: "very-unlikely" },
  },
  flagged: true,
  score: 0.91,
  notes: {},
});

/** 10k text assets straight into the table (the pipeline is not what this measures); every tenth rejected. */
async function seed(projectId: string, total: number): Promise<string[]> {
  await sqlPool().query(
    `INSERT INTO assets (id, project_id, name, type, status, file_format, size_in_bytes, report, flagged, moderation_action, rejection_note, created_at, updated_at)
     SELECT gen_random_uuid(), $1::uuid, 'bench asset ' || i, 'plaintext-document', CASE WHEN i % 10 = 0 THEN 'rejected'::asset_status ELSE 'approved'::asset_status END,
            'text/plain', 64, $2::jsonb, i % 10 = 0, CASE WHEN i % 10 = 0 THEN 'hide'::moderation_action ELSE 'ignore'::moderation_action END,
            CASE WHEN i % 10 = 0 THEN 'violence' END, now() - (i || ' seconds')::interval, now()
       FROM generate_series(1, $3::int) AS i`,
    [projectId, REPORT, total],
  );
  await sqlPool().query("ANALYZE assets");
  const { rows } = await sqlPool().query<{ id: string }>(
    `SELECT id::text FROM assets WHERE project_id = $1::uuid AND status = 'rejected' ORDER BY created_at DESC`,
    [projectId],
  );
  return rows.map((r) => r.id);
}

export async function benchPortal(server: RunningServer): Promise<void> {
  const total = Number(process.env.BENCH_PORTAL_ASSETS ?? 10_000);
  const loads = Number(process.env.BENCH_PORTAL_LOADS ?? 60);
  const decisions = Number(process.env.BENCH_PORTAL_DECISIONS ?? 200);
  const { createProject } = await import("@/lib/projects/provision");
  const { createApiKey } = await import("@/lib/auth/api-keys");
  const { createUser } = await import("@/lib/admin/users");
  const { createSession, SESSION_COOKIE } = await import("@/lib/auth/sessions");
  const project = await createProject({ name: "portal bench", permissions: ["assets:read"] });
  const key = await createApiKey({ projectId: project.projectId, permissions: ["assets:read", "assets:review"], rateLimitPerSecond: 0 });
  const { userId } = await createUser({
    email: `bench-${randomUUID()}@example.test`,
    password: "bench password",
    name: "Bench Reviewer",
    membership: { projectId: project.projectId, role: "member" },
  });
  const cookie = `${SESSION_COOKIE}=${(await createSession(userId)).token}`;
  const started = performance.now();
  const queued = await seed(project.projectId, total);
  console.log(`\nReviewer portal — ${total} assets (${queued.length} in the queue) inserted in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const base = server.baseUrl;
  const page = () => call(`${base}/projects/${project.projectId}/review`, { headers: { Cookie: cookie } });
  const firstData = () => call(`${base}/api/portal/projects/${project.projectId}/queue?limit=25`, { headers: { Cookie: cookie } });
  for (let i = 0; i < 5; i++) await Promise.all([page(), firstData()]); // warm-up: compile caches, pools
  const loadTimes: number[] = [];
  const health: number[] = [];
  for (let i = 0; i < loads; i++) {
    const t = performance.now();
    const html = await page();
    const data = await firstData();
    if (html.status !== 200 || data.status !== 200) throw new Error(`queue load: ${html.status} / ${data.status} ${data.body.slice(0, 200)}`);
    if ((JSON.parse(data.body) as { items: unknown[] }).items.length !== 25) throw new Error("queue load: expected 25 items");
    loadTimes.push(performance.now() - t);
    health.push((await call(`${base}/v1/health-check`)).ms);
  }
  const loadP50 = percentile(loadTimes, 50);
  console.log(`  queue page + first data   p50 ${loadP50.toFixed(1)} ms   p95 ${percentile(loadTimes, 95).toFixed(1)} ms`);
  console.log(`  GET /health-check         p50 ${percentile(health, 50).toFixed(1)} ms (ratio ${(loadP50 / percentile(health, 50)).toFixed(1)}x)`);
  console.log(`  queue load p50 ${loadP50.toFixed(1)} ms (target <= ${PAGE_TARGET_MS} ms) ${verdict(loadP50 <= PAGE_TARGET_MS)}`);

  const headers = { "X-Api-Key": key.apiKey, "Content-Type": "application/json" };
  const decided: number[] = [];
  const reads: number[] = [];
  const targets = queued.slice(0, decisions);
  for (const id of targets.slice(0, 5)) await call(`${base}/v1/assets/${id}`, { headers }); // warm-up
  for (const id of targets) {
    reads.push((await call(`${base}/v1/assets/${id}`, { headers })).ms);
    const res = await call(`${base}/v1/assets/${id}/review`, { method: "POST", headers, body: JSON.stringify({ decision: "approve" }) });
    if (res.status !== 200) throw new Error(`review: ${res.status} ${res.body.slice(0, 200)}`);
    decided.push(res.ms);
  }
  const decisionP50 = percentile(decided, 50);
  console.log(`  POST /assets/:id/review   p50 ${decisionP50.toFixed(1)} ms   p95 ${percentile(decided, 95).toFixed(1)} ms   (${decided.length} decisions)`);
  console.log(`  GET /assets/:id           p50 ${percentile(reads, 50).toFixed(1)} ms (ratio ${(decisionP50 / percentile(reads, 50)).toFixed(1)}x)`);
  console.log(`  decision p50 ${decisionP50.toFixed(1)} ms (target <= ${DECISION_TARGET_MS} ms) ${verdict(decisionP50 <= DECISION_TARGET_MS)}`);
}
