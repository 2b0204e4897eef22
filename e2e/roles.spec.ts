import { randomUUID } from "node:crypto";
import { expect, rows, signIn, snap, test } from "./support";

/** What each role may do in the portal, and who is refused (issue #11 requirement 2). */

test("an anonymous visit to a project page redirects to /login", async ({ page, env }) => {
  const target = `/projects/${env.projects.review.id}/review`;
  await page.goto(target);
  await expect(page).toHaveURL(new RegExp(`/login\\?callbackUrl=${encodeURIComponent(target)}$`));
  await expect(page.getByLabel("Email")).toBeVisible();
});

test("an anonymous visit to the asset page redirects to /login", async ({ page, env }) => {
  const { review } = env.projects;
  await page.goto(`/projects/${review.id}/assets/${review.texts[0]!.id}`);
  await expect(page).toHaveURL(/\/login\?callbackUrl=/);
});

test("a viewer sees the queue but no enabled Approve or Reject", async ({ page, env }) => {
  await signIn(page, env.users.viewer, `/projects/${env.projects.review.id}/review`);
  await expect(rows(page).first()).toBeVisible();
  await expect(page.locator(`[data-testid="queue-row"][data-asset-id="${env.projects.review.image!.id}"]`)).toBeVisible();
  for (const name of ["Approve", "Reject"]) {
    await expect(page.getByRole("button", { name, disabled: false }), `enabled ${name} buttons for a viewer`).toHaveCount(0);
  }
  await expect(page.getByRole("button", { name: /Approve selected/, disabled: false })).toHaveCount(0);
  await snap(page, "review-viewer");

  // The keyboard shortcut does nothing either: the focused item stays.
  const first = rows(page).first();
  const id = await first.getAttribute("data-asset-id");
  await page.keyboard.press("j");
  await page.keyboard.press("a");
  await page.waitForTimeout(500);
  await expect(page.locator(`[data-testid="queue-row"][data-asset-id="${id}"]`)).toHaveCount(1);
});

test("a member of the project sees enabled Approve buttons", async ({ page, env }) => {
  await signIn(page, env.users.member, `/projects/${env.projects.review.id}/review`);
  const row = page.locator(`[data-testid="queue-row"][data-asset-id="${env.projects.review.texts[0]!.id}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByRole("button", { name: "Approve" })).toBeEnabled();
  await expect(row.getByRole("button", { name: "Reject" })).toBeEnabled();
});

test("a user who is not a member gets the not-found page for the project", async ({ page, env }) => {
  await signIn(page, env.users.outsider);
  await page.goto(`/projects/${env.projects.review.id}/review`);
  await expect(page.getByText(/not found|could not be found|404/i).first()).toBeVisible();
  await expect(rows(page)).toHaveCount(0);
  await snap(page, "project-not-found");
  // The project is not listed either.
  await page.goto("/projects");
  await expect(page.getByText("E2E Review")).toHaveCount(0);
});

test("a member of one project gets not-found for another project and for an unknown id", async ({ page, env }) => {
  await signIn(page, env.users.member);
  for (const projectId of [env.projects.keyboard.id, randomUUID()]) {
    await page.goto(`/projects/${projectId}/review`);
    await expect(page.getByText(/not found|could not be found|404/i).first()).toBeVisible();
    await expect(rows(page)).toHaveCount(0);
  }
  await page.goto(`/projects/${env.projects.keyboard.id}/assets/${env.projects.keyboard.texts[0]!.id}`);
  await expect(page.getByText(/not found|could not be found|404/i).first()).toBeVisible();
});

test("a viewer's asset page has Approve and Reject disabled, with the reason", async ({ page, env }) => {
  const { review } = env.projects;
  await signIn(page, env.users.viewer, `/projects/${review.id}/assets/${review.texts[0]!.id}`);
  await expect(page.getByRole("heading", { name: review.texts[0]!.name })).toBeVisible();
  await expect(page.getByRole("button", { name: "Approve" })).toBeDisabled();
  await expect(page.getByRole("button", { name: "Reject" })).toBeDisabled();
  await expect(page.getByTestId("approve-blocked-reason")).toBeVisible();
});

test("an asset in error cannot be approved: Approve is disabled with the reason, Reject is not", async ({ page, env }) => {
  const { review } = env.projects;
  await signIn(page, env.users.member, `/projects/${review.id}/review`);
  const row = page.locator(`[data-testid="queue-row"][data-asset-id="${review.broken!.id}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByRole("button", { name: "Approve" })).toBeDisabled();
  await expect(row.getByTestId("approve-blocked-reason")).toBeVisible();
  await expect(row.getByRole("button", { name: "Reject" })).toBeEnabled();
  await snap(page, "review-error-item");
});
