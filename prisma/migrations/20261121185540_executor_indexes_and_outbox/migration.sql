-- CreateTable
CREATE TABLE "pipeline_outbox" (
    "id" BIGSERIAL NOT NULL,
    "event_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "data" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "pipeline_outbox_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "executor_runs_lease_until_idx" ON "executor_runs"("lease_until");

-- CreateIndex
CREATE INDEX "executor_runs_finished_at_idx" ON "executor_runs"("finished_at");
