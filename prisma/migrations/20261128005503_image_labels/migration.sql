-- What the labelling step saw in an image or a video's frames (lib/assets/labels): the Asset's
-- `imageLabels`, and one row per searchable term for natural-language search.
ALTER TABLE "assets" ADD COLUMN     "image_labels" JSONB;

CREATE TABLE "asset_labels" (
    "asset_id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "term" TEXT NOT NULL,
    "score" REAL NOT NULL,
    "count" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "asset_labels_pkey" PRIMARY KEY ("asset_id","term")
);

-- Search reads a term's rows from the index alone (every column it needs is in it, the asset's
-- creation time included: equal ranks are ordered newest first).
CREATE INDEX "asset_labels_project_id_term_score_asset_id_count_created_a_idx" ON "asset_labels"("project_id", "term", "score" DESC, "asset_id", "count", "created_at");

ALTER TABLE "asset_labels" ADD CONSTRAINT "asset_labels_asset_id_fkey" FOREIGN KEY ("asset_id") REFERENCES "assets"("id") ON DELETE CASCADE ON UPDATE CASCADE;
