-- CreateEnum
CREATE TYPE "unanalysable_action" AS ENUM ('reject', 'error', 'approve');

-- AlterTable
ALTER TABLE "projects" ADD COLUMN     "unanalysable_action" "unanalysable_action" NOT NULL DEFAULT 'reject';
