-- AlterTable
ALTER TABLE "assets" ADD COLUMN     "image_labels" JSONB;

-- CreateTable
CREATE TABLE "asset_labels" (
    "asset_id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "term" TEXT NOT NULL,
    "score" REAL NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "asset_labels_pkey" PRIMARY KEY ("asset_id","term")
);

-- CreateIndex
CREATE INDEX "asset_labels_project_id_term_score_idx" ON "asset_labels"("project_id", "term", "score" DESC);

-- AddForeignKey
ALTER TABLE "asset_labels" ADD CONSTRAINT "asset_labels_asset_id_fkey" FOREIGN KEY ("asset_id") REFERENCES "assets"("id") ON DELETE CASCADE ON UPDATE CASCADE;
