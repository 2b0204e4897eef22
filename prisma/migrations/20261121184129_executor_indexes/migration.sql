-- CreateIndex
CREATE INDEX "executor_runs_lease_until_idx" ON "executor_runs"("lease_until");

-- CreateIndex
CREATE INDEX "executor_runs_finished_at_idx" ON "executor_runs"("finished_at");
