import { rm } from "node:fs/promises";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { makeJpeg } from "@/tests/support/media-fixtures";
import { expectOk, newProject, waitForDecision, type TestProject } from "./support";

/**
 * Queued text and images (the `bulk` lane) are decided in batches by process-asset-batch: many
 * assets per run, each as it would be alone; one its batch cannot process gets a run of its own
 * (process-asset), with that function's retries and failure handling.
 */
const THREAT = "I will kill you tomorrow, you worthless idiot.";
const BENIGN = "Thanks for the lovely afternoon at the lake, see you next week!";

let p: TestProject;
let pool: pg.Pool;

beforeAll(async () => {
  p = await newProject();
  pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });
});
afterAll(async () => {
  await pool?.end();
});

const queuedText = async (text: string, i: number) =>
  expectOk(await p.client.post(`/projects/${p.projectId}/assets?queue=true`, { name: `bulk-${i}.txt`, content: { type: "text/plain", plainText: text } }));

/** The executor runs whose events carry this asset (a batch run's `events`, or a run's one `event`). */
async function runsOf(assetId: string): Promise<{ function_id: string; status: string; size: number; event_id: string }[]> {
  const { rows } = await pool.query(
    `SELECT function_id, status, coalesce(jsonb_array_length(events), 1) AS size, event->>'id' AS event_id FROM executor_runs
      WHERE event->'data'->>'assetId' = $1 OR events @> jsonb_build_array(jsonb_build_object('data', jsonb_build_object('assetId', $1::text)))`,
    [assetId],
  );
  return rows;
}

async function eventTypes(assetId: string): Promise<string[]> {
  const { rows } = await pool.query(`SELECT type FROM events WHERE asset_id = $1 ORDER BY txid, seq`, [assetId]);
  return rows.map((r) => r.type);
}

describe("bulk lane: queued text and images are decided in batches", () => {
  it("a burst of queued texts and images is decided by a few batch runs, each asset as it would be alone", async () => {
    const texts = await Promise.all(Array.from({ length: 12 }, (_, i) => queuedText(i % 3 === 0 ? THREAT : `${BENIGN} (${i})`, i)));
    const jpegs = await Promise.all([0, 1, 2].map((i) => makeJpeg({ width: 320 + i, height: 240 })));
    const images = await Promise.all(
      jpegs.map(async (jpeg, i) =>
        expectOk(await p.client.post(`/projects/${p.projectId}/assets?queue=true`, { name: `bulk-${i}.jpg`, content: { type: "image/jpeg", base64: jpeg.toString("base64") } })),
      ),
    );
    for (const asset of [...texts, ...images]) expect(asset.status).toBe("pending");

    const decided = await Promise.all([...texts, ...images].map((asset) => waitForDecision(p.client, asset.id, 30_000)));
    decided.slice(0, 12).forEach((asset, i) => expect(asset.status, `text ${i}`).toBe(i % 3 === 0 ? "rejected" : "approved"));
    for (const image of decided.slice(12)) expect(image.status).toBe("approved");

    const batchRuns = new Set<string>();
    for (const asset of decided) {
      // One completed batch run per asset, none of the one-asset function. A run is marked completed
      // a moment after its last asset's decision commits: look again until it is.
      await expect
        .poll(async () => (await runsOf(asset.id)).map((r) => [r.function_id, r.status]), { message: asset.name, timeout: 10_000 })
        .toEqual([["sieve-process-asset-batch", "completed"]]);
      const runs = await runsOf(asset.id);
      batchRuns.add(runs[0]!.event_id);
      expect(await eventTypes(asset.id), asset.name).toEqual(
        asset.status === "rejected" ? ["asset.uploaded", "asset.classified", "asset.flagged"] : ["asset.uploaded", "asset.classified"],
      );
    }
    // Texts and images batch apart; sends that straddle a batch's timeout may split one kind in two.
    expect(batchRuns.size).toBeGreaterThanOrEqual(2);
    expect(batchRuns.size).toBeLessThanOrEqual(4);
  });

  it("an asset its batch cannot process gets a run of its own and ends in error with asset.failed; the rest of the batch is decided", async () => {
    const assets = await Promise.all([BENIGN, THREAT, `${BENIGN} again`].map((text, i) => queuedText(text, 100 + i)));
    // The stored content of one goes missing before its batch starts (the batch waits 1 s for more events).
    await rm(path.join(inject("dataDir"), "storage", ...String(assets[0]!.storageId).split("/")));
    const [lost, threat, benign] = (await Promise.all(assets.map((asset) => waitForDecision(p.client, asset.id, 60_000)))) as [
      Record<string, any>,
      Record<string, any>,
      Record<string, any>,
    ];
    expect(threat.status).toBe("rejected");
    expect(benign.status).toBe("approved");
    expect(lost.status).toBe("error");
    expect(await eventTypes(lost.id)).toEqual(["asset.uploaded", "asset.failed"]);

    const runs = await runsOf(lost.id);
    expect(runs.map((r) => [r.function_id, r.status]).sort()).toEqual([
      ["sieve-process-asset", "failed"],
      ["sieve-process-asset-batch", "completed"],
    ]);
    expect(runs.find((r) => r.function_id === "sieve-process-asset")!.event_id).toMatch(/-single$/);
    expect((await runsOf(benign.id)).map((r) => r.function_id)).toEqual(["sieve-process-asset-batch"]);
  });
});
