import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));
// CI runs on a shared 2-core machine: a test that fails once is run again, and `npm test` lists
// every test that needed the second run (scripts/test.ts), so a flaky test is seen, not hidden.
const retry = process.env.CI ? 1 : 0;

export default defineConfig({
  resolve: { alias: { "@": root } },
  test: {
    reporters: process.env.VITEST_JSON_REPORT ? ["default", ["json", { outputFile: process.env.VITEST_JSON_REPORT }]] : ["default"],
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["lib/**/*.test.ts", "components/**/*.test.ts", "tests/unit/**/*.test.ts"], testTimeout: 30_000, hookTimeout: 60_000, retry },
      },
      {
        extends: true,
        test: {
          name: "http",
          include: ["tests/http/**/*.test.ts"],
          globalSetup: ["tests/http/global-setup.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          retry,
        },
      },
    ],
  },
});
