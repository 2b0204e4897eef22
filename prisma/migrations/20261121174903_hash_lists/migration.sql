-- CreateTable
CREATE TABLE "hash_lists" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "action" TEXT NOT NULL DEFAULT 'hold',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "hash_lists_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "hash_list_entries" (
    "id" UUID NOT NULL,
    "list_id" UUID NOT NULL,
    "hash" TEXT NOT NULL,
    "label" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "hash_list_entries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "hash_lists_name_key" ON "hash_lists"("name");

-- CreateIndex
CREATE INDEX "hash_list_entries_hash_idx" ON "hash_list_entries"("hash");

-- CreateIndex
CREATE UNIQUE INDEX "hash_list_entries_list_id_hash_key" ON "hash_list_entries"("list_id", "hash");

-- AddForeignKey
ALTER TABLE "hash_list_entries" ADD CONSTRAINT "hash_list_entries_list_id_fkey" FOREIGN KEY ("list_id") REFERENCES "hash_lists"("id") ON DELETE CASCADE ON UPDATE CASCADE;
