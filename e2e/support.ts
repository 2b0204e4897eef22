import { mkdirSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { test as base, expect, type Page } from "@playwright/test";
import { e2eEnv, type E2eEnv, type E2eUser } from "./env";

/**
 * Shared fixtures of the portal specs: baseURL from the global setup, a full-page screenshot of
 * every failed test (reports/screenshots/failed-….png), sign-in through the login form, screenshots
 * and axe checks by name.
 */
export const SCREENSHOTS = path.join(process.cwd(), "reports", "screenshots");

const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 120);

export const test = base.extend<{ env: E2eEnv; screenshotOnFailure: void }>({
  baseURL: async ({}, use) => use(e2eEnv().baseUrl),
  env: async ({}, use) => use(e2eEnv()),
  screenshotOnFailure: [
    async ({ page }, use, testInfo) => {
      await use();
      if (testInfo.status !== testInfo.expectedStatus) {
        const file = path.join(SCREENSHOTS, `failed-${slug(testInfo.titlePath.slice(1).join(" "))}.png`);
        mkdirSync(SCREENSHOTS, { recursive: true });
        await page.screenshot({ path: file, fullPage: true, timeout: 5_000 }).catch(() => undefined);
      }
    },
    { auto: true },
  ],
});

export { expect };

/** A full-page screenshot at reports/screenshots/<name>.png. */
export async function snap(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Signs in through the login form and waits until the portal has left /login. */
export async function signIn(page: Page, user: E2eUser, from = "/login"): Promise<void> {
  await page.goto(from);
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).not.toHaveURL(/\/login(\?|$)/);
}

/**
 * WCAG 2 A and AA rules of axe on the page once settled (nothing marked aria-busy, so no list is
 * dimmed while it refetches): no violations.
 */
export async function expectAccessible(page: Page): Promise<void> {
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0);
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa"]).analyze();
  const summary = results.violations.map((v) => `${v.id} (${v.impact}): ${v.help}\n    ${v.nodes.map((n) => `${n.target.join(" ")} — ${n.failureSummary?.replace(/\n/g, " ")}`).join("\n    ")}`);
  expect(summary, `axe violations on ${page.url()}`).toEqual([]);
}

/** The queue's rows, and the one keyboard focus is on. */
export const rows = (page: Page) => page.getByTestId("queue-row");
export const currentRow = (page: Page) => page.locator('[data-testid="queue-row"][aria-current="true"]');
export const rowOf = (page: Page, assetId: string) => page.locator(`[data-testid="queue-row"][data-asset-id="${assetId}"]`);

/** The public API (the project's key) for checking what a portal decision stored. */
export async function apiAsset(env: E2eEnv, apiKey: string, assetId: string): Promise<Record<string, any>> {
  const response = await fetch(`${env.baseUrl}/v1/assets/${assetId}`, { headers: { "X-Api-Key": apiKey } });
  if (!response.ok) throw new Error(`GET /v1/assets/${assetId}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, any>;
}
