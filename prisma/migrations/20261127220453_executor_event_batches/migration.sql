-- AlterTable
ALTER TABLE "executor_runs" ADD COLUMN     "events" JSONB;

-- CreateTable
CREATE TABLE "executor_batch_events" (
    "seq" BIGSERIAL NOT NULL,
    "function_id" TEXT NOT NULL,
    "batch_key" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "event" JSONB NOT NULL,
    "due_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "executor_batch_events_pkey" PRIMARY KEY ("seq")
);

-- CreateIndex
CREATE INDEX "executor_batch_events_function_id_batch_key_seq_idx" ON "executor_batch_events"("function_id", "batch_key", "seq");

-- CreateIndex
CREATE INDEX "executor_batch_events_due_at_idx" ON "executor_batch_events"("due_at");

-- CreateIndex
CREATE UNIQUE INDEX "executor_batch_events_function_id_event_id_key" ON "executor_batch_events"("function_id", "event_id");
