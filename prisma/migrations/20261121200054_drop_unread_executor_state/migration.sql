-- AlterTable
ALTER TABLE "executor_waits" DROP COLUMN "timeout_at";

-- DropTable
DROP TABLE "executor_functions";
