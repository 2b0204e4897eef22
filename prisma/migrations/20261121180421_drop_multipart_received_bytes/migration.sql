-- AlterTable
ALTER TABLE "multipart_uploads" DROP COLUMN "received_bytes";
