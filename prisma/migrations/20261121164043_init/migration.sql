-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "asset_type" AS ENUM ('image', 'video', 'audio', 'plaintext-document', 'multimedia-document', 'website', 'file');

-- CreateEnum
CREATE TYPE "asset_status" AS ENUM ('uploading', 'pending', 'approved', 'rejected', 'error');

-- CreateEnum
CREATE TYPE "moderation_action" AS ENUM ('ignore', 'alert', 'hide', 'purge');

-- CreateEnum
CREATE TYPE "visibility" AS ENUM ('public', 'private');

-- CreateEnum
CREATE TYPE "event_severity" AS ENUM ('low', 'high');

-- CreateEnum
CREATE TYPE "member_role" AS ENUM ('admin', 'member', 'viewer', 'custom');

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT,
    "password_hash" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "projects" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "owner_user_id" UUID NOT NULL,
    "default_moderation_action" "moderation_action" NOT NULL DEFAULT 'hide',
    "moderation_thresholds" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "projects_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "project_members" (
    "project_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "role" "member_role" NOT NULL DEFAULT 'member',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "project_members_pkey" PRIMARY KEY ("project_id","user_id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "name" TEXT,
    "prefix" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "permissions" TEXT[],
    "rate_limit_per_second" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "folders" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "parent_id" UUID,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "folders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "assets" (
    "id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "user_id" UUID,
    "parent_id" UUID,
    "folder_id" UUID,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "external_id" TEXT,
    "external_url" TEXT,
    "source_url" TEXT,
    "type" "asset_type" NOT NULL,
    "status" "asset_status" NOT NULL,
    "file_format" TEXT,
    "file_extension" TEXT,
    "size_in_bytes" BIGINT,
    "checksums" JSONB,
    "image_data" JSONB,
    "document_data" JSONB,
    "preview_image" JSONB,
    "storage_id" TEXT,
    "storage_deleted_at" TIMESTAMPTZ(3),
    "upload_parts_received" INTEGER,
    "metadata" JSONB,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "report" JSONB,
    "flagged" BOOLEAN,
    "moderation_action" "moderation_action",
    "safety_hold" JSONB,
    "rejection_note" TEXT,
    "extracted_text" TEXT,
    "processing_options" JSONB,
    "queued" BOOLEAN NOT NULL DEFAULT true,
    "visibility" "visibility",
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "assets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "multipart_uploads" (
    "asset_id" UUID NOT NULL,
    "content_type" TEXT NOT NULL,
    "total_size_in_bytes" BIGINT,
    "received_bytes" BIGINT NOT NULL DEFAULT 0,
    "part_sizes" BIGINT[] DEFAULT ARRAY[]::BIGINT[],
    "part_keys" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "completing" BOOLEAN NOT NULL DEFAULT false,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "multipart_uploads_pkey" PRIMARY KEY ("asset_id")
);

-- CreateTable
CREATE TABLE "lenses" (
    "id" UUID NOT NULL,
    "project_id" UUID,
    "user_id" UUID,
    "identifier" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "type" TEXT NOT NULL,
    "active" BOOLEAN NOT NULL,
    "transforms" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "lenses_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "events" (
    "id" UUID NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "txid" BIGINT NOT NULL DEFAULT ((pg_current_xact_id())::text)::bigint,
    "project_id" UUID NOT NULL,
    "user_id" UUID,
    "type" TEXT NOT NULL,
    "severity" "event_severity" NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "asset_id" UUID,
    "asset" JSONB,
    "facts" JSONB NOT NULL,
    "notify" BOOLEAN,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "read_at" TIMESTAMPTZ(3),

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_records" (
    "id" UUID NOT NULL,
    "api_key_id" UUID NOT NULL,
    "project_id" UUID NOT NULL,
    "route" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "request_hash" TEXT NOT NULL,
    "response_status" INTEGER,
    "response_headers" JSONB,
    "response_body" BYTEA,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "completed_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_counters" (
    "owner_user_id" UUID NOT NULL,
    "uploads_used" INTEGER NOT NULL DEFAULT 0,
    "upload_allowance" INTEGER,
    "limit_reached_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "usage_counters_pkey" PRIMARY KEY ("owner_user_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE INDEX "projects_owner_user_id_idx" ON "projects"("owner_user_id");

-- CreateIndex
CREATE INDEX "project_members_user_id_idx" ON "project_members"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_project_id_idx" ON "api_keys"("project_id");

-- CreateIndex
CREATE INDEX "folders_project_id_parent_id_name_idx" ON "folders"("project_id", "parent_id", "name");

-- CreateIndex
CREATE INDEX "folders_parent_id_idx" ON "folders"("parent_id");

-- CreateIndex
CREATE INDEX "assets_project_id_created_at_idx" ON "assets"("project_id", "created_at");

-- CreateIndex
CREATE INDEX "assets_project_id_parent_id_created_at_idx" ON "assets"("project_id", "parent_id", "created_at");

-- CreateIndex
CREATE INDEX "assets_project_id_updated_at_idx" ON "assets"("project_id", "updated_at");

-- CreateIndex
CREATE INDEX "assets_project_id_status_created_at_idx" ON "assets"("project_id", "status", "created_at");

-- CreateIndex
CREATE INDEX "assets_project_id_type_created_at_idx" ON "assets"("project_id", "type", "created_at");

-- CreateIndex
CREATE INDEX "assets_project_id_folder_id_created_at_idx" ON "assets"("project_id", "folder_id", "created_at");

-- CreateIndex
CREATE INDEX "assets_project_id_visibility_created_at_idx" ON "assets"("project_id", "visibility", "created_at");

-- CreateIndex
CREATE INDEX "assets_project_id_moderation_action_created_at_idx" ON "assets"("project_id", "moderation_action", "created_at");

-- CreateIndex
CREATE INDEX "assets_project_id_file_format_idx" ON "assets"("project_id", "file_format");

-- CreateIndex
CREATE INDEX "assets_project_id_size_in_bytes_idx" ON "assets"("project_id", "size_in_bytes");

-- CreateIndex
CREATE INDEX "assets_project_id_name_idx" ON "assets"("project_id", "name");

-- CreateIndex
CREATE INDEX "assets_tags_idx" ON "assets" USING GIN ("tags");

-- CreateIndex
CREATE INDEX "assets_parent_id_created_at_idx" ON "assets"("parent_id", "created_at");

-- CreateIndex
CREATE INDEX "assets_folder_id_idx" ON "assets"("folder_id");

-- CreateIndex
CREATE UNIQUE INDEX "assets_project_id_external_id_key" ON "assets"("project_id", "external_id");

-- CreateIndex
CREATE INDEX "multipart_uploads_expires_at_idx" ON "multipart_uploads"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "lenses_project_id_identifier_key" ON "lenses"("project_id", "identifier");

-- CreateIndex
CREATE UNIQUE INDEX "events_seq_key" ON "events"("seq");

-- CreateIndex
CREATE INDEX "events_project_id_txid_seq_idx" ON "events"("project_id", "txid", "seq");

-- CreateIndex
CREATE INDEX "events_asset_id_idx" ON "events"("asset_id");

-- CreateIndex
CREATE INDEX "idempotency_records_expires_at_idx" ON "idempotency_records"("expires_at");

-- CreateIndex
CREATE UNIQUE INDEX "idempotency_records_api_key_id_route_key_key" ON "idempotency_records"("api_key_id", "route", "key");

-- AddForeignKey
ALTER TABLE "projects" ADD CONSTRAINT "projects_owner_user_id_fkey" FOREIGN KEY ("owner_user_id") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "project_members" ADD CONSTRAINT "project_members_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "project_members" ADD CONSTRAINT "project_members_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "folders" ADD CONSTRAINT "folders_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "folders" ADD CONSTRAINT "folders_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "folders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "assets" ADD CONSTRAINT "assets_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "assets" ADD CONSTRAINT "assets_folder_id_fkey" FOREIGN KEY ("folder_id") REFERENCES "folders"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "assets" ADD CONSTRAINT "assets_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "assets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "multipart_uploads" ADD CONSTRAINT "multipart_uploads_asset_id_fkey" FOREIGN KEY ("asset_id") REFERENCES "assets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "lenses" ADD CONSTRAINT "lenses_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_project_id_fkey" FOREIGN KEY ("project_id") REFERENCES "projects"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "usage_counters" ADD CONSTRAINT "usage_counters_owner_user_id_fkey" FOREIGN KEY ("owner_user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
