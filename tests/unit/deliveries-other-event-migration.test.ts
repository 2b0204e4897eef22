import { describe, expect, it } from "vitest";
import { firstDeliveryIdOf, OTHER_EVENT_DELIVERY, SELECT_EVENT_DELIVERY_IDS } from "@/lib/connectors/delivery/passes";
import { insertProject, migratedClient } from "@/tests/support/migrated-database";

/**
 * An upgrade with first deliveries written before their ids were derived from their event and
 * connector (random ids): the migration that gives `connector_deliveries_other_event_idx` a cheap
 * predicate marks them, so `?eventId=` still finds them (SELECT_EVENT_DELIVERY_IDS) beside the
 * replays, and marks nothing else.
 */
const MIGRATION = "20261129103000_deliveries_other_event_flag";
const upgraded = migratedClient("deliveries-upgrade", { before: MIGRATION });

describe(`migration ${MIGRATION}`, () => {
  it("keeps an event's first deliveries with random ids findable by event, beside its replays", async () => {
    const { client, database } = upgraded;
    const project = await insertProject(client);
    const { rows: connectorRows } = await client.query<{ id: string }>(
      `INSERT INTO connectors (id, project_id, type, name, url, secret, updated_at) VALUES (gen_random_uuid(), $1, 'webhook', 'hook', 'https://example.test/hook', 'whsec_x', now())
       RETURNING id`,
      [project],
    );
    const connectorId = connectorRows[0]!.id;
    const events = await client.query<{ id: string }>(
      `INSERT INTO events (id, project_id, type, severity, title, facts, updated_at)
       SELECT gen_random_uuid(), $1, 'asset.uploaded', 'low', 'e', '[]', now() FROM generate_series(1, 2)
       RETURNING id`,
      [project],
    );
    const [legacyEvent, derivedEvent] = events.rows.map((row) => row.id) as [string, string];
    const insert = (id: string, eventId: string | null, replayOf: string | null = null) =>
      client.query(
        `INSERT INTO connector_deliveries (id, connector_id, event_id, replay_of, status, updated_at) VALUES (${id}, $1, $2, $3, 'succeeded', now()) RETURNING id`,
        [connectorId, eventId, replayOf],
      );
    const legacy = (await insert("gen_random_uuid()", legacyEvent)).rows[0]!.id as string;
    const replay = (await insert("gen_random_uuid()", legacyEvent, legacy)).rows[0]!.id as string;
    const derivedId = firstDeliveryIdOf("$2::uuid", "$1::uuid");
    const derived = (await insert(derivedId, derivedEvent)).rows[0]!.id as string;
    await insert("gen_random_uuid()", null); // a test message: no event, in none of the lookups

    await database.upgrade();

    const marked = await client.query<{ id: string }>("SELECT id FROM connector_deliveries WHERE legacy_random_id");
    expect(marked.rows.map((row) => row.id)).toEqual([legacy]);
    const ofEvent = async (eventId: string) =>
      (await client.query<{ id: string }>(SELECT_EVENT_DELIVERY_IDS, [eventId, connectorId])).rows.map((row) => row.id).sort();
    expect(await ofEvent(legacyEvent)).toEqual([legacy, replay].sort());
    expect(await ofEvent(derivedEvent)).toEqual([derived]);
    const others = await client.query<{ id: string }>(`SELECT id FROM connector_deliveries WHERE ${OTHER_EVENT_DELIVERY}`);
    expect(others.rows.map((row) => row.id).sort()).toEqual([legacy, replay].sort());
  });
});
