import { describe, expect, it } from "vitest";
import { migratedClient } from "@/tests/support/migrated-database";

/**
 * An upgrade with label jobs still in the outbox (the job per asset of before): the migration that
 * makes label_queue moves their assets into it (the newest generation once), drops the old jobs,
 * and leaves out assets deleted meanwhile.
 */
const MIGRATION = "20261128042010_label_queue";
const upgraded = migratedClient("label-upgrade", { before: MIGRATION });

describe(`migration ${MIGRATION}`, () => {
  it("moves waiting label jobs into the queue", async () => {
    const { client, database } = upgraded;
    const { rows } = await client.query<{ project: string; a: string; b: string }>(
      `WITH u AS (INSERT INTO users (id, email, updated_at) VALUES (gen_random_uuid(), 'x@x.test', now()) RETURNING id),
            p AS (INSERT INTO projects (id, name, owner_user_id, updated_at) SELECT gen_random_uuid(), 'p', u.id, now() FROM u RETURNING id)
       SELECT p.id AS project, gen_random_uuid() AS a, gen_random_uuid() AS b FROM p`,
    );
    const { project, a, b } = rows[0]!;
    await client.query(`INSERT INTO assets (id, project_id, name, type, status, updated_at) VALUES ($1, $2, 'a.jpg', 'image', 'approved', now())`, [a, project]);
    const job = (assetId: string, generation: number, frames = false) =>
      client.query(`INSERT INTO pipeline_outbox (event_id, name, data) VALUES ($1, 'sieve/asset.label-requested', $2)`, [
        `label-${assetId}-${generation}`,
        JSON.stringify({ projectId: project, assetId, generation, sources: frames ? 3 : 1, frames }),
      ]);
    await job(a, 1);
    await job(a, 2, true); // reprocessed as a video before the first job ran
    await job(b, 1); // its asset was deleted
    await client.query(`INSERT INTO pipeline_outbox (event_id, name, data) VALUES ('other', 'sieve/asset.process', '{}')`);

    await database.upgrade();

    const queued = await client.query(`SELECT asset_id::text, project_id::text, generation, sources, frames FROM label_queue`);
    expect(queued.rows).toEqual([{ asset_id: a, project_id: project, generation: 2, sources: 3, frames: true }]);
    const outbox = await client.query(`SELECT name FROM pipeline_outbox`);
    expect(outbox.rows).toEqual([{ name: "sieve/asset.process" }]);
  });
});
