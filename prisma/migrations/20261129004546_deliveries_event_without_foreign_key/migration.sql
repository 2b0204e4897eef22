-- A delivery keeps its event id without a foreign key: the check locked the event's row for every
-- delivery written (a write to the events table each time). Events are deleted only with their
-- project, whose connectors take their deliveries with them (connector_id keeps its foreign key).
-- DropForeignKey
ALTER TABLE "connector_deliveries" DROP CONSTRAINT "connector_deliveries_event_id_fkey";
