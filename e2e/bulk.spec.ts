import { apiAsset, currentRow, expect, rowOf, rows, signIn, snap, test } from "./support";

/** Bulk decisions on a selection (issue #11 requirement 3), in the "E2E Bulk" project. */

test("x selects two rows, Approve selected approves both, and they stay gone after a reload", async ({ page, env }) => {
  const { bulk } = env.projects;
  await signIn(page, env.users.admin, `/projects/${bulk.id}/review`);
  await expect(rows(page).first()).toBeVisible();
  const total = await rows(page).count();
  expect(total).toBeGreaterThanOrEqual(3);

  const selected: string[] = [];
  for (let i = 0; i < 2; i++) {
    await page.keyboard.press("j");
    selected.push((await currentRow(page).getAttribute("data-asset-id")) as string);
    await page.keyboard.press("x");
  }
  expect(new Set(selected).size).toBe(2);
  // Selected rows show it to assistive technology (a checked checkbox or aria-selected).
  for (const id of selected) {
    await expect(rowOf(page, id).getByRole("checkbox")).toBeChecked();
  }
  await snap(page, "review-bulk-selection");

  await page.getByRole("button", { name: "Approve selected" }).click();
  for (const id of selected) await expect(rowOf(page, id)).toHaveCount(0);
  await expect(rows(page)).toHaveCount(total - 2);
  for (const id of selected) await expect.poll(async () => (await apiAsset(env, bulk.apiKey, id)).status, { timeout: 20_000 }).toBe("approved");
  await expect(page.getByTestId("reviewed-count")).toContainText("2");

  await page.reload();
  await expect(rows(page)).toHaveCount(total - 2);
  for (const id of selected) await expect(rowOf(page, id)).toHaveCount(0);
  // Nothing is selected any more, so the bulk buttons are off.
  await expect(page.getByRole("button", { name: "Approve selected", disabled: false })).toHaveCount(0);
});

test("x twice unselects a row", async ({ page, env }) => {
  const { bulk } = env.projects;
  await signIn(page, env.users.admin, `/projects/${bulk.id}/review`);
  await expect(rows(page).first()).toBeVisible();
  await page.keyboard.press("j");
  const id = (await currentRow(page).getAttribute("data-asset-id")) as string;
  const box = rowOf(page, id).getByRole("checkbox");
  await page.keyboard.press("x");
  await expect(box).toBeChecked();
  await page.keyboard.press("x");
  await expect(box).not.toBeChecked();
});
