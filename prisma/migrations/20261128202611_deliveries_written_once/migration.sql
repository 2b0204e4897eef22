-- AlterTable
ALTER TABLE "connector_deliveries" ADD COLUMN     "first_latency_ms" INTEGER,
ADD COLUMN     "first_response_excerpt" TEXT,
ADD COLUMN     "first_started_at" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "connector_dispatch_passes" (
    "id" BIGSERIAL NOT NULL,
    "from_txid" BIGINT NOT NULL,
    "from_seq" BIGINT NOT NULL,
    "to_txid" BIGINT NOT NULL,
    "to_seq" BIGINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "connector_dispatch_passes_pkey" PRIMARY KEY ("id")
);
