import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { makeJpeg, makePdf, makeVideo, makeWav } from "@/tests/support/media-fixtures";
import { startTestServer, type CrashableServer, type RunningServer } from "@/tests/support/test-server";
import { makeTextImage } from "@/tests/support/text-image";

/**
 * Requirement: killing the server mid-pipeline loses nothing. Assets of every type are uploaded
 * with queue=true, the server is SIGKILLed while they are being processed, a new server process
 * starts on the same database and storage, and every asset must reach a final status with each
 * side effect (decision events, children, content removal) applied exactly once.
 */
let server: RunningServer & CrashableServer;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "sieve-durability-"));
  server = await startTestServer({
    // A crashed process's leases expire quickly, and lost sends are re-sent soon.
    SIEVE_EXECUTOR_LEASE_MS: "2000",
    SIEVE_PROCESSING_RECONCILE_SECONDS: "5",
    SIEVE_EXECUTOR_RETRY_BASE_MS: "50",
  });
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

interface Upload {
  label: string;
  body: Record<string, unknown>;
  children: number;
}

it("SIGKILL mid-pipeline: after a restart every asset is final and every side effect happened once", { timeout: 300_000 }, async () => {
  const { createProject } = await import("@/lib/projects/provision");
  const { db } = await import("@/lib/db/client");
  const project = await createProject({ name: "durability", permissions: ["assets:write", "assets:read"] });
  const post = async (body: Record<string, unknown>) => {
    const response = await fetch(`${server.baseUrl}/v1/projects/${project.projectId}/assets?queue=true`, {
      method: "POST",
      headers: { "X-Api-Key": project.apiKey, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const json = (await response.json()) as { id: string; status: string };
    if (response.status !== 200) throw new Error(`upload failed: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  const b64 = (bytes: Buffer, type: string) => ({ type, base64: bytes.toString("base64") });
  const video = await readFile(await makeVideo(dir, { seconds: 20, width: 640, height: 360, withAudio: true }));
  const wav = await readFile(await makeWav(dir, { seconds: 8, frequency: 300 }));
  const photos = await Promise.all([0, 1, 2, 3].map((i) => makeJpeg({ width: 200 + i, height: 150 })));
  const uploads: Upload[] = [
    { label: "video", body: { name: "clip.mp4", content: b64(video, "video/mp4") }, children: 0 },
    { label: "audio", body: { name: "tone.wav", content: b64(wav, "audio/wav") }, children: 0 },
    {
      label: "pdf",
      body: {
        name: "doc.pdf",
        content: b64(makePdf({ pages: [{ text: "Minutes of the meeting", jpeg: await makeJpeg({ width: 64, height: 64 }) }] }), "application/pdf"),
      },
      children: 2,
    },
    {
      label: "image+ocr",
      body: {
        name: "sign.png",
        content: b64(await makeTextImage("I will kill you", { width: 700, fontSize: 48 }), "image/png"),
        processingOptions: { image: { ocrEnabled: true }, flaggedContentPolicy: { action: "purge" } },
      },
      children: 1,
    },
    ...photos.map((photo, i) => ({ label: `image-${i}`, body: { name: `photo-${i}.jpg`, content: b64(photo, "image/jpeg") }, children: 0 })),
    ...Array.from({ length: 8 }, (_, i) => ({
      label: `text-${i}`,
      body: {
        name: `note-${i}.txt`,
        content: { type: "text/plain", plainText: i % 2 ? `I will kill you, number ${i}` : `A calm note number ${i}` },
        processingOptions: { keepContentAfterProcessing: i % 4 === 0 },
      },
      children: 0,
    })),
  ];
  const created = await Promise.all(uploads.map(async (u) => ({ ...u, asset: await post(u.body) })));
  const ids = created.map((c) => c.asset.id);

  // Crash while the pipeline is busy with them: some decided, the long ones still running.
  const busyBy = Date.now() + 30_000;
  while (Date.now() < busyBy) {
    const decided = await db().asset.count({ where: { id: { in: ids }, status: { not: "pending" } } });
    const leased = await db().executorRun.count({ where: { leaseOwner: { not: null }, status: { in: ["queued", "waiting"] } } });
    if (decided >= 3 && leased >= 1) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await server.kill();
  const atKill = await db().asset.findMany({ where: { id: { in: ids } }, select: { id: true, status: true } });
  const pendingAtKill = atKill.filter((a) => a.status === "pending").length;
  const runsMidFlight = await db().executorRun.count({ where: { status: { in: ["queued", "waiting"] } } });
  const runsLeased = await db().executorRun.count({ where: { leaseOwner: { not: null }, status: { in: ["queued", "waiting"] } } });
  expect(pendingAtKill).toBeGreaterThan(0);
  expect(runsLeased, "the kill must catch runs inside a step").toBeGreaterThan(0);

  const restartedAt = Date.now();
  await server.restart();
  const deadline = Date.now() + 240_000;
  let statuses: { id: string; status: string }[] = [];
  for (;;) {
    statuses = await db().asset.findMany({ where: { id: { in: ids } }, select: { id: true, status: true } });
    if (statuses.every((a) => a.status !== "pending")) break;
    if (Date.now() > deadline) throw new Error(`still pending: ${JSON.stringify(statuses.filter((a) => a.status === "pending"))}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const recoveredInMs = Date.now() - restartedAt;

  for (const { asset, label, children, body } of created) {
    const row = await db().asset.findUniqueOrThrow({ where: { id: asset.id } });
    expect(["approved", "rejected"], `${label} ended ${row.status}`).toContain(row.status);
    const events = await db().event.findMany({ where: { assetId: asset.id }, orderBy: { seq: "asc" } });
    const count = (type: string) => events.filter((e) => e.type === type).length;
    expect(count("asset.uploaded"), label).toBe(1);
    expect(count("asset.classified"), label).toBe(1);
    expect(count("asset.failed"), label).toBe(0);
    expect(count("asset.flagged"), label).toBe(row.flagged && row.moderationAction !== "ignore" ? 1 : 0);
    expect(await db().asset.count({ where: { parentId: asset.id } }), `${label} children`).toBe(children);
    // Queued text and images are processed in batches (process-asset-batch), the others one run each.
    const runs = await db().$queryRawUnsafe<{ status: string; error: unknown; stack: string[] }[]>(
      `SELECT status, error, stack FROM executor_runs
        WHERE (function_id = 'sieve-process-asset' AND event->'data'->>'assetId' = $1)
           OR (function_id = 'sieve-process-asset-batch' AND events @> jsonb_build_array(jsonb_build_object('data', jsonb_build_object('assetId', $1::text))))`,
      asset.id,
    );
    const runInfo = JSON.stringify(runs.map((r) => ({ status: r.status, error: r.error, stack: r.stack.length })));
    const keep = (body.processingOptions as { keepContentAfterProcessing?: boolean } | undefined)?.keepContentAfterProcessing === true;
    // What failed closed (rejected without a flag, e.g. the speechless tone) keeps its content for a reviewer.
    const failedClosed = row.status === "rejected" && !row.flagged && (row.report as { notes?: { unanalysed?: unknown } } | null)?.notes?.unanalysed !== undefined;
    expect(row.storageId === null, `${label} content removed (runs ${runInfo})`).toBe(row.moderationAction === "purge" || (!keep && !failedClosed));
    expect(runs.map((r) => r.status), `${label} runs: ${runInfo}`).toEqual(["completed"]);
  }

  console.log(
    `durability: SIGKILL with ${pendingAtKill} of ${ids.length} assets pending, ${runsMidFlight} runs unfinished (${runsLeased} inside a step); ` +
      `after restart all ${ids.length} final in ${(recoveredInMs / 1000).toFixed(1)} s; ` +
      `each asset has exactly one asset.uploaded, one asset.classified, its flag event at most once, its children once and one completed run`,
  );
});
