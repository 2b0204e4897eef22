import type { Page } from "@playwright/test";
import { expect, expectAccessible, rows, signIn, snap, test } from "./support";

/** axe (WCAG 2 A and AA) on every page of the portal, with a full-page screenshot of each. */

test("login page", async ({ page }) => {
  await page.goto("/login");
  await expect(page.getByLabel("Email")).toBeVisible();
  await snap(page, "a11y-login");
  await expectAccessible(page);
});

test("login page with an error", async ({ page, env }) => {
  await page.goto("/login");
  await page.getByLabel("Email").fill(env.users.viewer.email);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: /\S/ })).toBeVisible();
  await snap(page, "a11y-login-error");
  await expectAccessible(page);
});

test("projects page", async ({ page, env }) => {
  await signIn(page, env.users.admin);
  await expect(page.getByRole("link", { name: /E2E Review/ }).first()).toBeVisible();
  await snap(page, "a11y-projects");
  await expectAccessible(page);
});

test("review queue", async ({ page, env }) => {
  await signIn(page, env.users.admin, `/projects/${env.projects.review.id}/review`);
  await expect(rows(page).first()).toBeVisible();
  await page.keyboard.press("j");
  await snap(page, "a11y-review");
  await expectAccessible(page);
});

test("review queue with the help dialog", async ({ page, env }) => {
  await signIn(page, env.users.admin, `/projects/${env.projects.review.id}/review`);
  await expect(rows(page).first()).toBeVisible();
  await page.keyboard.press("?");
  await expect(page.getByRole("dialog")).toBeVisible();
  await snap(page, "a11y-review-help");
  await expectAccessible(page);
});

test("review queue with a note form and the settings panel open", async ({ page, env }) => {
  await signIn(page, env.users.admin, `/projects/${env.projects.review.id}/review`);
  await expect(rows(page).first()).toBeVisible();
  await page.keyboard.press("j");
  await page.keyboard.press("n");
  await expect(page.getByRole("textbox", { name: /note/i })).toBeFocused();
  await page.getByRole("button", { name: "Review settings" }).click();
  await expect(page.getByRole("checkbox", { name: /Reveal media by default/ })).toBeVisible();
  await snap(page, "a11y-review-note-settings");
  await expectAccessible(page);
});

test("review queue as a viewer", async ({ page, env }) => {
  await signIn(page, env.users.viewer, `/projects/${env.projects.review.id}/review`);
  await expect(rows(page).first()).toBeVisible();
  await snap(page, "a11y-review-viewer");
  await expectAccessible(page);
});

test("asset detail (text)", async ({ page, env }) => {
  const { review } = env.projects;
  await signIn(page, env.users.admin, `/projects/${review.id}/assets/${review.texts[0]!.id}`);
  await expect(page.getByRole("heading", { name: review.texts[0]!.name })).toBeVisible();
  await snap(page, "a11y-asset-text");
  await expectAccessible(page);
});

test("asset detail (image)", async ({ page, env }) => {
  const { review } = env.projects;
  await signIn(page, env.users.admin, `/projects/${review.id}/assets/${review.image!.id}`);
  await expect(page.getByTestId("media").first()).toBeVisible();
  await snap(page, "a11y-asset-image");
  await expectAccessible(page);
});

test("asset detail (audio)", async ({ page, env }) => {
  const { review } = env.projects;
  await signIn(page, env.users.admin, `/projects/${review.id}/assets/${review.audio!.id}`);
  await expect(page.locator("audio")).toHaveCount(1);
  await snap(page, "a11y-asset-audio");
  await expectAccessible(page);
});

test("asset detail as a viewer", async ({ page, env }) => {
  const { review } = env.projects;
  await signIn(page, env.users.viewer, `/projects/${review.id}/assets/${review.texts[0]!.id}`);
  await expect(page.getByRole("heading", { name: review.texts[0]!.name })).toBeVisible();
  await snap(page, "a11y-asset-viewer");
  await expectAccessible(page);
});

test("review queue with filters that match nothing (empty state)", async ({ page, env }) => {
  await signIn(page, env.users.admin, `/projects/${env.projects.review.id}/review`);
  await expect(rows(page).first()).toBeVisible();
  await page.getByLabel("Type", { exact: true }).selectOption({ label: "Video" });
  await expect(rows(page)).toHaveCount(0);
  await expect(page.getByText(/No items match/)).toBeVisible();
  await snap(page, "a11y-review-empty");
  await expectAccessible(page);
});

test("project not found", async ({ page, env }) => {
  await signIn(page, env.users.outsider);
  await page.goto(`/projects/${env.projects.review.id}/review`);
  await expect(page.getByText(/not found|could not be found|404/i).first()).toBeVisible();
  await snap(page, "a11y-not-found");
  await expectAccessible(page);
});

test("projects page of a user without projects", async ({ page, env }) => {
  await signIn(page, env.users.outsider);
  await expect(page).toHaveURL(/\/projects$/);
  await snap(page, "a11y-projects-empty");
  await expectAccessible(page);
});

test.describe("on a phone-sized screen", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

  test("review queue fits the width and passes axe", async ({ page, env }) => {
    await signIn(page, env.users.admin, `/projects/${env.projects.review.id}/review`);
    await expect(rows(page).first()).toBeVisible();
    await snap(page, "a11y-review-phone");
    expect(await fitsWidth(page), "no horizontal scrolling").toBe(true);
    await expectAccessible(page);
  });

  test("asset detail fits the width and passes axe", async ({ page, env }) => {
    const { review } = env.projects;
    await signIn(page, env.users.admin, `/projects/${review.id}/assets/${review.image!.id}`);
    await expect(page.getByTestId("media").first()).toBeVisible();
    await snap(page, "a11y-asset-phone");
    expect(await fitsWidth(page), "no horizontal scrolling").toBe(true);
    await expectAccessible(page);
  });
});
