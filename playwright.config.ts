import { defineConfig, devices } from "@playwright/test";

/**
 * End-to-end tests of the reviewer portal (e2e/): one real production server (`next build` must
 * have run) on an embedded PostgreSQL, started by e2e/global-setup.ts, driven with Debian's
 * Chromium (Playwright cannot download browsers here; CHROMIUM_PATH overrides the path).
 * `npm test` runs them after the HTTP tests and counts reports/playwright.json.
 */
export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  globalSetup: "./e2e/global-setup.ts",
  outputDir: "test-results",
  // The specs share one server; each area works in its own project, one test at a time.
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env.CI,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [["list"], ["json", { outputFile: "reports/playwright.json" }]],
  use: {
    ...devices["Desktop Chrome"],
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium" },
    trace: "retain-on-failure",
    actionTimeout: 10_000,
    navigationTimeout: 30_000,
  },
});
