import { defineConfig } from "prisma/config";

// The CLI is used for `generate` only; migrations run through scripts/migrate.ts (no engine binary).
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
