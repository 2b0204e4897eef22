-- CreateEnum
CREATE TYPE "connector_type" AS ENUM ('webhook', 'slack', 'email');

-- CreateEnum
CREATE TYPE "delivery_status" AS ENUM ('pending', 'succeeded', 'failed', 'cancelled');

-- CreateTable
CREATE TABLE "connectors" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "type" "connector_type" NOT NULL,
    "name" TEXT NOT NULL,
    "url" TEXT,
    "recipients" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "event_types" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "secret" TEXT NOT NULL,
    "previous_secret" TEXT,
    "previous_secret_expires_at" TIMESTAMPTZ(3),
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabled_at" TIMESTAMPTZ(3),
    "disabled_reason" TEXT,
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "failing_since" TIMESTAMPTZ(3),
    "last_error" TEXT,
    "last_success_at" TIMESTAMPTZ(3),
    "last_failure_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "connectors_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "connector_deliveries" (
    "id" UUID NOT NULL,
    "connector_id" UUID NOT NULL,
    "event_id" UUID,
    "replay_of" UUID,
    "status" "delivery_status" NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "queued_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "connector_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "connector_delivery_attempts" (
    "id" UUID NOT NULL,
    "delivery_id" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "latency_ms" INTEGER NOT NULL,
    "status_code" INTEGER,
    "error" TEXT,
    "response_excerpt" TEXT,

    CONSTRAINT "connector_delivery_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "connector_dispatch_cursor" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "txid" BIGINT NOT NULL,
    "seq" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "connector_dispatch_cursor_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "connectors_project_id_created_at_idx" ON "connectors"("project_id", "created_at");

-- CreateIndex
CREATE INDEX "connector_deliveries_connector_id_created_at_idx" ON "connector_deliveries"("connector_id", "created_at");

-- CreateIndex
CREATE INDEX "connector_deliveries_event_id_idx" ON "connector_deliveries"("event_id");

-- CreateIndex
CREATE INDEX "connector_deliveries_status_created_at_idx" ON "connector_deliveries"("status", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "connector_delivery_attempts_delivery_id_attempt_key" ON "connector_delivery_attempts"("delivery_id", "attempt");

-- CreateIndex
CREATE INDEX "events_txid_seq_idx" ON "events"("txid", "seq");

-- CreateIndex
CREATE INDEX "events_project_id_read_at_idx" ON "events"("project_id", "read_at");

-- AddForeignKey
ALTER TABLE "connectors" ADD CONSTRAINT "connectors_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "connector_deliveries" ADD CONSTRAINT "connector_deliveries_connector_id_fkey" FOREIGN KEY ("connector_id") REFERENCES "connectors"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "connector_deliveries" ADD CONSTRAINT "connector_deliveries_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "connector_delivery_attempts" ADD CONSTRAINT "connector_delivery_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "connector_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The dispatcher (lib/connectors/dispatch.ts) turns committed events into deliveries. It starts at
-- the moment of this migration: no connector existed before it.
INSERT INTO "connector_dispatch_cursor" ("id", "txid", "seq", "updated_at")
VALUES (1, (pg_snapshot_xmin(pg_current_snapshot())::text)::bigint, 0, CURRENT_TIMESTAMP);

-- Wakes the dispatcher when events commit (NOTIFY is delivered at commit), so a delivery starts
-- within milliseconds instead of at the next poll. One notification per statement, not per row.
CREATE OR REPLACE FUNCTION sieve_notify_events_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('sieve_events', '');
  RETURN NULL;
END;
$$;

CREATE TRIGGER events_inserted_notify
AFTER INSERT ON "events"
FOR EACH STATEMENT EXECUTE FUNCTION sieve_notify_events_inserted();
