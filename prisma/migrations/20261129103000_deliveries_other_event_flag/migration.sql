-- The index of an event's deliveries other than its first (replays, and first deliveries written
-- before delivery ids were derived from their event and connector) had the derivation, an md5 of
-- the two ids, in its predicate: PostgreSQL evaluated it for every delivery written (bench/events.ts:
-- ~10 % of a success's record). The old first deliveries are marked once here instead, and the
-- predicate reads two columns (lib/connectors/delivery/passes.ts OTHER_EVENT_DELIVERY).
-- AlterTable
ALTER TABLE "connector_deliveries" ADD COLUMN "legacy_random_id" BOOLEAN NOT NULL DEFAULT false;

UPDATE "connector_deliveries" SET "legacy_random_id" = true
 WHERE "event_id" IS NOT NULL AND "replay_of" IS NULL
   AND "id" <> (overlay(overlay(md5("event_id"::text || "connector_id"::text) placing '8' from 13 for 1) placing '8' from 17 for 1))::uuid;

DROP INDEX "connector_deliveries_other_event_idx";

CREATE INDEX "connector_deliveries_other_event_idx" ON "connector_deliveries" ("event_id")
  WHERE "replay_of" IS NOT NULL OR "legacy_random_id";
