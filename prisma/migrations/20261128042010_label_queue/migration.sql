-- Assets whose labels are due (lib/assets/labels/queue.ts): one row per asset, written in its
-- decision's transaction; the labelling function takes the oldest first and deletes each when done.
-- It replaces a job per asset (a burst of 1500 images made 1500 events and their bookkeeping).
-- CreateTable
CREATE TABLE "label_queue" (
    "asset_id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "generation" INTEGER NOT NULL,
    "sources" INTEGER NOT NULL,
    "frames" BOOLEAN NOT NULL,
    "queued_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "label_queue_pkey" PRIMARY KEY ("asset_id")
);

-- CreateIndex
CREATE INDEX "label_queue_queued_at_idx" ON "label_queue"("queued_at");

-- AddForeignKey
ALTER TABLE "label_queue" ADD CONSTRAINT "label_queue_asset_id_fkey" FOREIGN KEY ("asset_id") REFERENCES "assets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Label jobs still waiting in the outbox from before: their assets join the queue instead (the
-- server's reconciliation sends the job that drains it).
INSERT INTO "label_queue" ("asset_id", "project_id", "generation", "sources", "frames")
SELECT DISTINCT ON ((o."data"->>'assetId')::uuid) (o."data"->>'assetId')::uuid, (o."data"->>'projectId')::uuid,
       (o."data"->>'generation')::int, (o."data"->>'sources')::int, (o."data"->>'frames')::boolean
  FROM "pipeline_outbox" o
  JOIN "assets" a ON a."id" = (o."data"->>'assetId')::uuid
 WHERE o."name" = 'sieve/asset.label-requested'
 ORDER BY (o."data"->>'assetId')::uuid, (o."data"->>'generation')::int DESC;
DELETE FROM "pipeline_outbox" WHERE "name" = 'sieve/asset.label-requested';
