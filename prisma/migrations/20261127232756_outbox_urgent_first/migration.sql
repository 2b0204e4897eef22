-- AlterTable
ALTER TABLE "pipeline_outbox" ADD COLUMN     "urgent" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "pipeline_outbox_urgent_id_idx" ON "pipeline_outbox"("urgent" DESC, "id");
