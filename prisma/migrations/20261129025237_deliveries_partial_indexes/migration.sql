-- A succeeded delivery (the common row, written once after its first attempt) enters no index but
-- its primary key and (connector_id, created_at): the indexes on event_id and (status, created_at)
-- give way to partial ones that leave successes out (bench/events.ts: PostgreSQL's work per
-- delivery). Prisma's schema language has no partial indexes: they live here alone.
-- DropIndex
DROP INDEX "connector_deliveries_event_id_idx";

-- DropIndex
DROP INDEX "connector_deliveries_status_created_at_idx";

-- Deliveries not succeeded, by connector and status: the deliveries list filtered by status, and
-- the cancelling of a connector's pending deliveries when it is turned off.
CREATE INDEX "connector_deliveries_unfinished_idx" ON "connector_deliveries" ("connector_id", "status", "created_at")
  WHERE "status" <> 'succeeded';

-- Pending deliveries never handed to the job runner: the sweep for first attempts a crash lost.
CREATE INDEX "connector_deliveries_unqueued_idx" ON "connector_deliveries" ("created_at")
  WHERE "status" = 'pending' AND "queued_at" IS NULL;

-- Deliveries of an event whose id is not the event's first-delivery id for their connector
-- (replays, and deliveries written before first-delivery ids were derived): `?eventId=` finds the
-- first delivery by its id and these by this index (lib/connectors/delivery/passes.ts).
CREATE INDEX "connector_deliveries_other_event_idx" ON "connector_deliveries" ("event_id")
  WHERE "event_id" IS NOT NULL
    AND "id" <> (overlay(overlay(md5("event_id"::text || "connector_id"::text) placing '8' from 13 for 1) placing '8' from 17 for 1))::uuid;
