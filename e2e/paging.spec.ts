import { currentRow, expect, rows, signIn, test } from "./support";

/** The queue pages through the cursor route (25 a page): Load more, and j past the last loaded row. */

test("Load more fetches the next page until the end of the queue", async ({ page, env }) => {
  const { paging } = env.projects;
  await signIn(page, env.users.admin, `/projects/${paging.id}/review`);
  await expect(rows(page)).toHaveCount(25);
  await page.getByRole("button", { name: "Load more" }).click();
  await expect(rows(page)).toHaveCount(paging.texts.length);
  await expect(page.getByText("End of the queue.")).toBeVisible();
  // Newest first by default: each asset once, in creation order reversed.
  const names = await rows(page).evaluateAll((els) => els.map((el) => el.querySelector("h3")?.textContent?.trim()));
  expect(names).toEqual(paging.texts.map((t) => t.name).reverse());
});

test("j on the last loaded row loads the next page and moves on", async ({ page, env }) => {
  const { paging } = env.projects;
  await signIn(page, env.users.admin, `/projects/${paging.id}/review`);
  await expect(rows(page)).toHaveCount(25);
  for (let i = 0; i < 25; i++) await page.keyboard.press("j");
  await expect(currentRow(page)).toHaveAttribute("data-asset-id", paging.texts[paging.texts.length - 25]!.id);
  await page.keyboard.press("j");
  await expect(rows(page)).toHaveCount(paging.texts.length);
  await expect(currentRow(page)).toHaveAttribute("data-asset-id", paging.texts[paging.texts.length - 26]!.id);
  await expect(currentRow(page)).toBeFocused();
});

test("oldest first reverses the order", async ({ page, env }) => {
  const { paging } = env.projects;
  await signIn(page, env.users.admin, `/projects/${paging.id}/review`);
  await expect(rows(page)).toHaveCount(25);
  await page.getByLabel("Order").selectOption({ label: "Oldest first" });
  await expect(rows(page).first()).toHaveAttribute("data-asset-id", paging.texts[0]!.id);
});
