import { randomUUID } from "node:crypto";
import { adminCli } from "./seed";
import { expect, expectAccessible, signIn, snap, test } from "./support";

/** Projects in the portal (issue #12 requirement 1): creating one, and switching between them. */

test("a project owner creates a project, lands on its keys page, and switches back keeping the page", async ({ page, env }) => {
  const email = `owner-${randomUUID().slice(0, 8)}@e2e.sieve.test`;
  const password = "Owner-Pa55word!";
  await adminCli(env.databaseUrl, env.dataDir, ["create-user", "--email", email, "--password", password, "--name", "Olga Owner"]);
  const first = await adminCli(env.databaseUrl, env.dataDir, ["create-project", "--name", "Olga's first", "--owner-email", email]);

  await signIn(page, { email, password, name: "Olga Owner", userId: "" }, "/projects");
  const form = page.getByRole("form", { name: "New project" });
  await expect(form).toBeVisible();
  await expectAccessible(page);
  await snap(page, "projects-new-project");

  await form.getByLabel("Project name").fill("   ");
  await expect(form.getByRole("button", { name: "Create project" })).toBeDisabled();
  await form.getByLabel("Project name").fill("Olga's second");
  await form.getByRole("button", { name: "Create project" }).click();
  await expect(page).toHaveURL(/\/projects\/[0-9a-f-]{36}\/keys$/);
  const secondId = page.url().split("/")[4]!;
  expect(secondId).not.toBe(first.projectId);

  await page.goto(`/projects/${secondId}/usage`);
  await page.getByLabel("Project", { exact: true }).selectOption({ label: "Olga's first" });
  await page.getByRole("button", { name: "Switch" }).click();
  await expect(page).toHaveURL(`/projects/${first.projectId as string}/usage`);
  await expect(page.getByRole("heading", { name: "Usage" })).toBeVisible();
});

test("someone who owns no project is not offered New project", async ({ page, env }) => {
  await signIn(page, env.users.member, "/projects");
  await expect(page.getByRole("heading", { name: "Your projects" })).toBeVisible();
  await expect(page.getByRole("form", { name: "New project" })).toHaveCount(0);
});
