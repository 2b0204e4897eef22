import { expect, signIn, snap, test } from "./support";

/** The asset detail page: report, media and the event history. */

test("the detail page shows the report as bars, and a decision there appears in the history as asset.rejected", async ({ page, env }) => {
  const { review } = env.projects;
  const asset = review.texts[2]!;
  await signIn(page, env.users.admin, `/projects/${review.id}/assets/${asset.id}`);
  await expect(page.getByRole("heading", { name: asset.name })).toBeVisible();
  // One bar per category: text is judged in all six.
  const bars = page.getByRole("meter");
  await expect(bars).toHaveCount(6);
  await expect(page.getByRole("meter", { name: "Violence score" })).toHaveAttribute("aria-valuenow", /^(0|0?\.\d+|1)$/);
  await expect(page.getByText("asset.classified").first()).toBeVisible();
  await snap(page, "asset-detail-text");

  const note = "Checked on the detail page";
  await page.getByLabel("Note (optional)").fill(note);
  await page.getByRole("button", { name: "Reject" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Rejected." })).toBeVisible();
  const rejected = page.locator('[data-testid="event"][data-event-type="asset.rejected"]');
  await expect(rejected).toHaveCount(1);
  await expect(rejected.getByText("asset.rejected")).toBeVisible();
  await rejected.getByText("Details").click();
  await expect(rejected).toContainText(note);
  await expect(rejected).toContainText(env.users.admin.name);
  await snap(page, "asset-detail-after-reject");
});

test("a row of the queue links to the detail page", async ({ page, env }) => {
  const { review } = env.projects;
  const asset = review.texts[1]!;
  await signIn(page, env.users.viewer, `/projects/${review.id}/review`);
  await page.getByRole("link", { name: asset.name }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${review.id}/assets/${asset.id}$`));
  await expect(page.getByRole("heading", { name: asset.name })).toBeVisible();
});

test("the detail page of an image blurs it until Reveal", async ({ page, env }) => {
  const { review } = env.projects;
  await signIn(page, env.users.viewer, `/projects/${review.id}/assets/${review.image!.id}`);
  const media = page.getByTestId("media").first();
  await expect(media).toHaveAttribute("data-revealed", "false");
  await snap(page, "asset-detail-image");
  await page.getByRole("button", { name: /Reveal/ }).first().click();
  await expect(media).toHaveAttribute("data-revealed", "true");
});
