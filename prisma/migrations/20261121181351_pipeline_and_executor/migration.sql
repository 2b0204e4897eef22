-- AlterTable
ALTER TABLE "assets" ADD COLUMN     "derived_key" TEXT,
ADD COLUMN     "processing_generation" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "processing_requested_at" TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "keep_content_by_default" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "batch_operations" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "operation" TEXT NOT NULL,
    "params" JSONB NOT NULL DEFAULT '{}',
    "status" TEXT NOT NULL DEFAULT 'queued',
    "items" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "batch_operations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "executor_events" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "executor_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "executor_functions" (
    "id" TEXT NOT NULL,
    "config" JSONB NOT NULL,
    "synced_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "executor_functions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "executor_runs" (
    "id" TEXT NOT NULL,
    "function_id" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'queued',
    "event" JSONB NOT NULL,
    "steps" JSONB NOT NULL DEFAULT '{}',
    "stack" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "planned" JSONB NOT NULL DEFAULT '[]',
    "attempt" INTEGER NOT NULL DEFAULT 0,
    "disable_immediate_execution" BOOLEAN NOT NULL DEFAULT false,
    "next_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "wait" JSONB,
    "lease_owner" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "concurrency_keys" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "throttle_key" TEXT,
    "idempotency_key" TEXT,
    "parent_run_id" TEXT,
    "parent_step_id" TEXT,
    "output" JSONB,
    "error" JSONB,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "executor_runs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "executor_waits" (
    "run_id" TEXT NOT NULL,
    "step_id" TEXT NOT NULL,
    "event_name" TEXT NOT NULL,
    "expression" TEXT,
    "run_event" JSONB NOT NULL,
    "timeout_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "executor_waits_pkey" PRIMARY KEY ("run_id","step_id")
);

-- CreateIndex
CREATE INDEX "batch_operations_project_id_created_at_idx" ON "batch_operations"("project_id", "created_at");

-- CreateIndex
CREATE INDEX "executor_events_received_at_idx" ON "executor_events"("received_at");

-- CreateIndex
CREATE UNIQUE INDEX "executor_runs_idempotency_key_key" ON "executor_runs"("idempotency_key");

-- CreateIndex
CREATE INDEX "executor_runs_status_next_at_idx" ON "executor_runs"("status", "next_at");

-- CreateIndex
CREATE INDEX "executor_runs_function_id_throttle_key_started_at_idx" ON "executor_runs"("function_id", "throttle_key", "started_at");

-- CreateIndex
CREATE INDEX "executor_runs_parent_run_id_idx" ON "executor_runs"("parent_run_id");

-- CreateIndex
CREATE INDEX "executor_waits_event_name_idx" ON "executor_waits"("event_name");

-- CreateIndex
CREATE UNIQUE INDEX "assets_parent_id_derived_key_key" ON "assets"("parent_id", "derived_key");

-- AddForeignKey
ALTER TABLE "batch_operations" ADD CONSTRAINT "batch_operations_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;
