import pg from "pg";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebhookEnvelope } from "@/lib/connectors/delivery/envelope";
import { EVENT_COLUMNS, storedEvent, type EventRow } from "@/lib/connectors/delivery/load";
import { webhookRequest } from "@/lib/connectors/delivery/send";
import { recordEvents, type NewEvent } from "@/lib/events/record";
import { insertProject, startMigratedDatabase, type MigratedDatabase } from "@/tests/support/migrated-database";

/**
 * A delivery's body is written out from the event's columns, its asset and facts as PostgreSQL's
 * text of them (storedEvent): it must be the JSON of the event's WebhookEnvelope, whatever its
 * strings hold.
 */
let database: MigratedDatabase;
let pool: pg.Pool;
let projectId: string;

beforeAll(async () => {
  database = await startMigratedDatabase("event-envelope");
  pool = database.pool();
  projectId = await insertProject(pool);
}, 120_000);

afterAll(async () => {
  await database?.stop();
});

/** Records `event` and reads it back as a delivery does: its envelope's JSON, and its id and time. */
async function stored(event: NewEvent, tweak?: string): Promise<{ json: string; id: string; createdMs: number }> {
  await recordEvents(pool, [event]);
  if (tweak) await pool.query(`UPDATE events SET ${tweak} WHERE seq = (SELECT max(seq) FROM events)`);
  const { rows } = await pool.query<EventRow & { project_id: string }>(`SELECT ${EVENT_COLUMNS}, e.project_id FROM events e ORDER BY seq DESC LIMIT 1`);
  const row = rows[0]!;
  const { id, json } = storedEvent(row, row.project_id)!;
  return { json, id, createdMs: row.event_created_ms! };
}

const NASTY = `quote " backslash \\ newline \n tab \t control \u0001\u001f del \u007f emoji 😀 ü <b>&amp;</b> \u2028\u2029 '; DROP TABLE events; --`;

describe("an event's envelope as a delivery sends it", () => {
  it("is exactly {id, type, createdAt, projectId, data} with the event's fields, its strings intact", async () => {
    const asset = { id: "9a0b2c3d-1111-4222-8333-944455556666", externalId: NASTY, status: "rejected", flagged: true, moderationAction: "hide" } as const;
    const facts = [
      { key: NASTY, value: [NASTY, "second"] },
      { key: "score", value: 0.97 },
      { key: "nothing", value: null },
      { key: "asset-url", value: "a", url: "https://example.test/a?b=c&d" },
    ];
    const event: NewEvent = { projectId, type: "asset.flagged", title: NASTY, description: NASTY, asset, facts };
    const { json, id, createdMs } = await stored(event);
    const envelope = JSON.parse(json) as WebhookEnvelope;
    expect(Object.keys(envelope)).toEqual(["id", "type", "createdAt", "projectId", "data"]);
    expect(Object.keys(envelope.data)).toEqual(["severity", "title", "description", "assetId", "asset", "facts"]);
    expect(envelope).toEqual({
      id,
      type: "asset.flagged",
      createdAt: createdMs,
      projectId,
      data: { severity: "high", title: NASTY, description: NASTY, assetId: asset.id, asset, facts },
    });
    expect(Number.isInteger(envelope.createdAt)).toBe(true);
  });

  it("has nulls for what the event lacks, and facts that are not a list become an empty one", async () => {
    const plain = await stored({ projectId, type: "asset.uploaded", title: "plain", facts: [] });
    expect(JSON.parse(plain.json)).toMatchObject({ data: { severity: "low", title: "plain", description: null, assetId: null, asset: null, facts: [] } });
    expect(plain.json, "without asset and facts, byte for byte JSON.stringify's").toBe(JSON.stringify(JSON.parse(plain.json)));
    const odd = await stored({ projectId, type: "asset.uploaded", title: "odd", facts: [] }, `facts = '{"not": "a list"}'::jsonb`);
    expect(JSON.parse(odd.json).data.facts).toEqual([]);
  });

  it("is the body a receiver verifies with the standardwebhooks package", async () => {
    const { json, id } = await stored({ projectId, type: "asset.uploaded", title: NASTY, facts: [{ key: "k", value: NASTY }] });
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const { body, headers } = webhookRequest({ secret, previousSecret: null, previousSecretExpiresAt: null }, { id, json });
    expect(body).toBe(json);
    expect(new Webhook(secret).verify(body, headers)).toMatchObject({ id, data: { title: NASTY } });
  });
});
