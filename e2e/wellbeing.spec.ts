import type { Locator, Page } from "@playwright/test";
import { expect, rowOf, signIn, snap, test } from "./support";

/** Reviewer wellbeing defaults (issue #11 requirement 4): blurred media, muted audio, no autoplay. */

/** The CSS filter of the media element or the image/video inside it. */
const filterOf = (media: Locator) =>
  media.evaluate((el) => {
    const target = el.matches("img, video") ? el : (el.querySelector("img, video") ?? el);
    const own = getComputedStyle(target).filter;
    return own !== "none" ? own : getComputedStyle(el).filter;
  });

test("images are blurred and grey until Reveal", async ({ page, env }) => {
  const { review } = env.projects;
  await signIn(page, env.users.member, `/projects/${review.id}/review`);
  const row = rowOf(page, review.image!.id);
  const media = row.getByTestId("media");
  await expect(media).toHaveAttribute("data-revealed", "false");
  await expect.poll(() => filterOf(media)).toMatch(/blur\(/);
  expect(await filterOf(media)).toMatch(/grayscale\(/);
  // The image itself is loaded from the CDN with the session cookie.
  const image = row.locator("img").first();
  await expect.poll(() => image.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
  await snap(page, "review-media-blurred");

  await row.getByRole("button", { name: /Reveal/ }).click();
  await expect(media).toHaveAttribute("data-revealed", "true");
  await expect.poll(() => filterOf(media)).not.toMatch(/blur\(/);
  await snap(page, "review-media-revealed");
});

test("audio is muted and does not play by itself (asset page)", async ({ page, env }) => {
  const { review } = env.projects;
  await signIn(page, env.users.member, `/projects/${review.id}/assets/${review.audio!.id}`);
  const audio = page.locator("audio");
  await expect(audio).toHaveCount(1);
  const state = await audio.evaluate((el) => {
    const a = el as HTMLAudioElement;
    return { muted: a.muted, autoplay: a.autoplay, paused: a.paused, controls: a.controls };
  });
  expect(state).toEqual({ muted: true, autoplay: false, paused: true, controls: true });
  await page.waitForTimeout(1000);
  expect(await audio.evaluate((el) => (el as HTMLAudioElement).paused)).toBe(true);
  await snap(page, "asset-detail-audio");
});

test("nothing on the page autoplays", async ({ page, env }) => {
  const { review } = env.projects;
  await signIn(page, env.users.member, `/projects/${review.id}/review`);
  await expect(rowOf(page, review.image!.id)).toBeVisible();
  const autoplaying = await page.locator("audio, video").evaluateAll((els) => els.filter((el) => (el as HTMLMediaElement).autoplay || !(el as HTMLMediaElement).paused).length);
  expect(autoplaying).toBe(0);
});

/** Puts a user's preferences back through the portal route (same-origin JSON, as the page sends it). */
async function resetPreferences(page: Page, baseUrl: string) {
  const response = await page.request.put(`${baseUrl}/api/portal/me/preferences`, {
    data: { revealMediaByDefault: false, breakReminderAfter: 50 },
    headers: { Origin: baseUrl },
  });
  expect(response.status(), await response.text()).toBe(200);
}

test("Reveal media by default (settings) shows media unblurred, and survives a reload", async ({ page, env }) => {
  const { review } = env.projects;
  await signIn(page, env.users.member, `/projects/${review.id}/review`);
  const media = rowOf(page, review.image!.id).getByTestId("media");
  await expect(media).toHaveAttribute("data-revealed", "false");
  try {
    await page.getByRole("button", { name: "Review settings" }).click();
    const toggle = page.getByRole("checkbox", { name: /Reveal media by default/ });
    await expect(toggle).not.toBeChecked();
    await toggle.check();
    await expect(media).toHaveAttribute("data-revealed", "true");
    await snap(page, "review-settings");
    await page.reload();
    await expect(rowOf(page, review.image!.id).getByTestId("media")).toHaveAttribute("data-revealed", "true");
  } finally {
    await resetPreferences(page, env.baseUrl);
  }
  await page.reload();
  await expect(rowOf(page, review.image!.id).getByTestId("media")).toHaveAttribute("data-revealed", "false");
});

test("a break reminder appears after the configured number of decisions", async ({ page, env }) => {
  const { keyboard } = env.projects;
  await signIn(page, env.users.admin, `/projects/${keyboard.id}/review`);
  await expect(page.getByTestId("queue-row").first()).toBeVisible();
  try {
    await page.getByRole("button", { name: "Review settings" }).click();
    const field = page.getByLabel(/Break reminder after/);
    await field.fill("1");
    await page.getByRole("button", { name: "Save" }).click();
    await expect(field).toHaveValue("1");
    const settings = page.getByRole("button", { name: "Review settings" });
    await settings.click();
    await expect(settings).toHaveAttribute("aria-expanded", "false");
    await expect(page.getByTestId("break-reminder")).toHaveCount(0);
    await page.getByTestId("queue-row").first().focus();
    await page.keyboard.press("r");
    const reminder = page.getByRole("status").filter({ hasText: /break/i });
    await expect(reminder).toBeVisible();
    await snap(page, "review-break-reminder");
    await reminder.getByRole("button", { name: "Dismiss" }).click();
    await expect(reminder).toHaveCount(0);
  } finally {
    await resetPreferences(page, env.baseUrl);
  }
});

test("saving a setting keeps keyboard focus in the settings panel, and Escape closes it", async ({ page, env }) => {
  const { review } = env.projects;
  await signIn(page, env.users.member, `/projects/${review.id}/review`);
  const settings = page.getByRole("button", { name: "Review settings" });
  try {
    await settings.click();
    const field = page.getByLabel(/Break reminder after/);
    await field.fill("40");
    // A keyboard user tabs to Save and presses Enter.
    await field.press("Tab");
    await expect(page.getByRole("button", { name: "Save" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(field).toHaveValue("40");
    // Focus must not fall back to <body> (a disabled, focused Save button drops it).
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('[data-testid="review-settings"]') !== null)).toBe(true);
    await page.keyboard.press("Escape");
    await expect(settings).toHaveAttribute("aria-expanded", "false");
  } finally {
    await resetPreferences(page, env.baseUrl);
  }
});
