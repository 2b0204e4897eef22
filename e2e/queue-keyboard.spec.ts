import type { Page } from "@playwright/test";
import type { E2eEnv } from "./env";
import { apiAsset, currentRow, expect, rowOf, rows, signIn, snap, test } from "./support";

/** The review queue driven by the keyboard (issue #11 requirement 3), in the "E2E Keyboard" project. */

async function openQueue(page: Page, env: E2eEnv) {
  await signIn(page, env.users.admin, `/projects/${env.projects.keyboard.id}/review`);
  await expect(rows(page).first()).toBeVisible();
}

/** Index of the row keyboard focus is on (-1 if none). */
async function currentIndex(page: Page): Promise<number> {
  const ids = await rows(page).evaluateAll((els) => els.map((el) => el.getAttribute("aria-current")));
  return ids.findIndex((value) => value === "true");
}

/** asset.approved / asset.rejected events of one asset in the keyboard project, with the reviewer's user id. */
async function reviewEvents(env: E2eEnv, assetId: string): Promise<{ type: string; reviewer: unknown }[]> {
  const { keyboard } = env.projects;
  const events: { type: string; reviewer: unknown }[] = [];
  let cursor = "djEuMC4w"; // the feed's start
  for (;;) {
    const response = await fetch(`${env.baseUrl}/v1/projects/${keyboard.id}/events?limit=100&after=${cursor}&type=asset.approved,asset.rejected`, {
      headers: { "X-Api-Key": keyboard.apiKey },
    });
    const body = (await response.json()) as { events: any[]; cursor: string; hasMore: boolean };
    for (const event of body.events) {
      if (event.assetId !== assetId) continue;
      events.push({ type: event.type, reviewer: event.facts.find((f: any) => f.key === "reviewer-user-id")?.value ?? null });
    }
    if (!body.hasMore) return events;
    cursor = body.cursor;
  }
}

const reviewedCount = async (page: Page) => Number(((await page.getByTestId("reviewed-count").textContent()) ?? "").match(/\d+/)?.[0] ?? NaN);

test("j and k move aria-current between rows", async ({ page, env }) => {
  await openQueue(page, env);
  await expect.poll(() => rows(page).count()).toBeGreaterThanOrEqual(3);
  await page.keyboard.press("j");
  await expect(currentRow(page)).toHaveCount(1);
  const start = await currentIndex(page);
  await page.keyboard.press("j");
  await expect.poll(() => currentIndex(page)).toBe(start + 1);
  await page.keyboard.press("j");
  await expect.poll(() => currentIndex(page)).toBe(start + 2);
  await page.keyboard.press("k");
  await expect.poll(() => currentIndex(page)).toBe(start + 1);
  await expect(currentRow(page)).toHaveCount(1);
  // The focused row is the focused element, so focus is visible where the keys act.
  await expect(currentRow(page)).toBeFocused();
  await snap(page, "review-keyboard-focus");
});

test("a approves the focused item: it leaves the list and the counter goes up", async ({ page, env }) => {
  const { keyboard } = env.projects;
  await openQueue(page, env);
  await expect(page.getByTestId("reviewed-count")).toBeVisible();
  const before = await reviewedCount(page);
  expect(before).toBe(0);
  const total = await rows(page).count();
  await page.keyboard.press("j");
  const id = (await currentRow(page).getAttribute("data-asset-id")) as string;
  expect(id).toBeTruthy();
  await page.keyboard.press("a");
  await expect(rowOf(page, id)).toHaveCount(0);
  await expect(rows(page)).toHaveCount(total - 1);
  await expect.poll(() => reviewedCount(page)).toBe(before + 1);
  await expect.poll(async () => (await apiAsset(env, keyboard.apiKey, id)).status).toBe("approved");
  // Focus moves on to another row, so the next key acts on a neighbour.
  await expect(currentRow(page)).toHaveCount(1);
  // Still gone after a reload.
  await page.reload();
  await expect(rows(page).first()).toBeVisible();
  await expect(rowOf(page, id)).toHaveCount(0);
});

test("n opens a note: typing does not trigger shortcuts, Enter rejects with the note", async ({ page, env }) => {
  const { keyboard } = env.projects;
  await openQueue(page, env);
  const before = await reviewedCount(page);
  const total = await rows(page).count();
  await page.keyboard.press("j");
  const id = (await currentRow(page).getAttribute("data-asset-id")) as string;
  const note = "Spam link, policy 4.2 (a r x j)";
  await page.keyboard.press("n");
  const field = page.getByRole("textbox", { name: /note/i });
  await expect(field).toBeFocused();
  await field.pressSequentially(note);
  // The letters typed into the note decided nothing and moved nothing.
  await expect(rows(page)).toHaveCount(total);
  expect(await reviewedCount(page)).toBe(before);
  await page.keyboard.press("Enter");
  await expect(field).toBeHidden();
  await expect.poll(() => reviewedCount(page)).toBe(before + 1);
  await expect.poll(async () => (await apiAsset(env, keyboard.apiKey, id)).rejectionNote).toBe(note);
  // The portal records the signed-in reviewer, not a key.
  await expect.poll(async () => (await reviewEvents(env, id)).map((e) => e.reviewer)).toContain(env.users.admin.userId);
  // Decided, it has left the queue.
  await expect(rowOf(page, id)).toHaveCount(0);
  await expect(rows(page)).toHaveCount(total - 1);
});

test("r rejects the focused item: it leaves the list and the counter goes up", async ({ page, env }) => {
  await openQueue(page, env);
  await page.keyboard.press("j");
  await page.keyboard.press("j");
  const id = (await currentRow(page).getAttribute("data-asset-id")) as string;
  const before = (await reviewEvents(env, id)).length;
  await page.keyboard.press("r");
  await expect(rowOf(page, id)).toHaveCount(0);
  await expect.poll(() => reviewedCount(page)).toBe(1);
  await expect.poll(async () => (await reviewEvents(env, id)).filter((e) => e.type === "asset.rejected").length).toBe(before + 1);
});

test("Escape cancels a note without deciding", async ({ page, env }) => {
  await openQueue(page, env);
  await page.keyboard.press("j");
  const id = (await currentRow(page).getAttribute("data-asset-id")) as string;
  const total = await rows(page).count();
  await page.keyboard.press("n");
  const field = page.getByRole("textbox", { name: /note/i });
  await expect(field).toBeFocused();
  await field.pressSequentially("a r x");
  await page.keyboard.press("Escape");
  await expect(field).toBeHidden();
  await expect(rows(page)).toHaveCount(total);
  await expect(rowOf(page, id)).toHaveCount(1);
  expect(await reviewedCount(page)).toBe(0);
});

test("? opens the keyboard help and Escape closes it", async ({ page, env }) => {
  await openQueue(page, env);
  await page.keyboard.press("?");
  const help = page.getByRole("dialog");
  await expect(help).toBeVisible();
  await expect(help).toContainText(/j/);
  await snap(page, "review-help");
  await page.keyboard.press("Escape");
  await expect(help).toBeHidden();
});

test("a decision the server refuses puts the item back and says why", async ({ page, env }) => {
  const { keyboard } = env.projects;
  await openQueue(page, env);
  await page.keyboard.press("j");
  const id = (await currentRow(page).getAttribute("data-asset-id")) as string;
  // Someone else approves it meanwhile (through the API); approving an approved asset is refused.
  const response = await fetch(`${env.baseUrl}/v1/assets/${id}/review`, {
    method: "POST",
    headers: { "X-Api-Key": keyboard.apiKey, "Content-Type": "application/json" },
    body: JSON.stringify({ decision: "approve" }),
  });
  expect(response.status).toBe(200);
  await page.keyboard.press("a");
  await expect(page.getByRole("alert").filter({ hasText: /Could not approve/ })).toBeVisible();
  await expect(rowOf(page, id)).toHaveCount(1);
  await snap(page, "review-decision-refused");
  expect(await reviewedCount(page)).toBe(0);
});
