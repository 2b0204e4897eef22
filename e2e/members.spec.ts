import { randomUUID } from "node:crypto";
import type { Browser, Page } from "@playwright/test";
import { adminCli } from "./seed";
import { expect, expectAccessible, signIn, snap, test } from "./support";
import type { E2eEnv } from "./env";

/** The owner console's members page and invitation links (issue #12 requirement 7). */

const membersUrl = (env: E2eEnv) => `/projects/${env.console.members.id}/members`;
const memberItem = (page: Page, name: string) => page.getByTestId("member-item").filter({ has: page.getByRole("heading", { name, exact: true }) });

/** Creates an invitation link with `role` on the open members page and answers its URL. */
async function createInvitation(page: Page, role: "Admin" | "Member" | "Viewer"): Promise<string> {
  await page.getByRole("button", { name: "Invite someone" }).click();
  await page.getByRole("radio", { name: new RegExp(`^${role}`) }).check();
  await page.getByRole("button", { name: "Create invitation link" }).click();
  const link = (await page.getByTestId("secret-value").textContent()) ?? "";
  expect(link).toMatch(/\/invite\/[A-Za-z0-9_-]{43}$/);
  await page.getByRole("button", { name: /Done/ }).click();
  return link;
}

async function anonymousPage(browser: Browser): Promise<Page> {
  return (await browser.newContext()).newPage();
}

test("an admin invites by link; a new person signs up with it and joins with the role", async ({ page, env, browser, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signIn(page, env.users.admin, membersUrl(env));
  await expect(page.getByRole("heading", { name: "Members", level: 1 })).toBeVisible();
  await expect(page.getByTestId("member-item").first()).toBeVisible();
  await page.getByRole("button", { name: "Invite someone" }).click();
  await page.getByRole("radio", { name: /^Viewer/ }).check();
  await expectAccessible(page);
  await snap(page, "members-invite-form");
  await page.getByRole("button", { name: "Create invitation link" }).click();
  const panel = page.getByTestId("secret-panel");
  await expect(panel).toContainText("You will not see it again");
  const link = (await page.getByTestId("secret-value").textContent()) ?? "";
  await panel.getByRole("button", { name: "Copy" }).click();
  await expect(panel.getByText("Copied", { exact: true })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
  await snap(page, "members-invite-link");
  await panel.getByRole("button", { name: /Done/ }).click();
  await expect(page.getByTestId("invitation-item").filter({ hasText: "Viewer invitation" }).first()).toBeVisible();
  expect(await page.content()).not.toContain(link.split("/invite/")[1]);

  const guest = await anonymousPage(browser);
  await guest.goto(link);
  await expect(guest.getByRole("heading", { name: `Join ${env.console.members.name}` })).toBeVisible();
  await expect(guest.getByText(/invited you to join/)).toContainText("as Viewer");
  await expectAccessible(guest);
  await snap(guest, "members-invite-signup");
  const name = `Vera ${randomUUID().slice(0, 6)}`;
  await guest.getByLabel("Your name").fill(name);
  await guest.getByLabel("Email").fill(`vera-${randomUUID()}@example.test`);
  await guest.getByLabel("Password").fill("short");
  await guest.getByRole("button", { name: "Create account and join" }).click();
  await expect(guest.getByRole("main").getByRole("alert")).toHaveText("Choose a password of at least 8 characters.");
  await expect(guest.getByLabel("Your name")).toHaveValue(name);
  await guest.getByLabel("Password").fill("a long enough password");
  await guest.getByRole("button", { name: "Create account and join" }).click();
  await expect(guest).toHaveURL(new RegExp(`/projects/${env.console.members.id}/review$`));
  await expect(guest.getByTestId("header-user")).toContainText(name);

  // Used once: the link now says so.
  await guest.goto(link);
  await expect(guest.getByTestId("invitation-unusable")).toContainText("already used");
  await guest.context().close();

  await page.reload();
  const joined = memberItem(page, name);
  await expect(joined).toContainText("Viewer");
  await expect(joined).toContainText("Joined");
  await expectAccessible(page);
  await snap(page, "members-list");
});

test("someone with an account signs in from the link and accepts", async ({ page, env, browser }) => {
  const email = `sam-${randomUUID()}@example.test`;
  const name = `Sam ${randomUUID().slice(0, 6)}`;
  await adminCli(env.databaseUrl, env.dataDir, ["create-user", "--email", email, "--password", "sam-password-1", "--name", name]);
  await signIn(page, env.users.admin, membersUrl(env));
  const link = await createInvitation(page, "Member");

  const guest = await anonymousPage(browser);
  await guest.goto(link);
  await guest.getByRole("link", { name: "Sign in to accept" }).click();
  // Type only once the login page has loaded (and its form hydrated): a submit before that is lost.
  await guest.waitForURL(/\/login\?callbackUrl=/, { waitUntil: "load" });
  await guest.getByLabel("Email").fill(email);
  await guest.getByLabel("Password").fill("sam-password-1");
  await guest.getByRole("button", { name: "Sign in" }).click();
  await expect(guest).toHaveURL(/\/invite\//);
  await expect(guest.getByText(/You are signed in as/)).toContainText(name);
  await expectAccessible(guest);
  await snap(guest, "members-invite-accept");
  await guest.getByRole("button", { name: `Join ${env.console.members.name}` }).click();
  await expect(guest).toHaveURL(new RegExp(`/projects/${env.console.members.id}/review$`));
  await guest.context().close();

  await page.reload();
  await expect(memberItem(page, name)).toContainText("Member");
});

test("an admin changes a role (custom: a permission checklist) and removes a member", async ({ page, env }) => {
  const email = `rita-${randomUUID()}@example.test`;
  const name = `Rita ${randomUUID().slice(0, 6)}`;
  await adminCli(env.databaseUrl, env.dataDir, ["create-user", "--email", email, "--password", "rita-password-1", "--name", name, "--project", env.console.members.id, "--role", "member"]);
  await signIn(page, env.users.admin, membersUrl(env));
  const item = memberItem(page, name);
  await item.getByRole("button", { name: "Change role…" }).click();
  await item.getByRole("radio", { name: /^Custom/ }).check();
  await item.getByRole("button", { name: "Save role" }).click();
  await expect(item.getByRole("alert")).toHaveText("Choose at least one permission for a custom role.");
  await item.getByRole("checkbox", { name: /assets:read/ }).check();
  await item.getByRole("checkbox", { name: /assets:review/ }).check();
  await expectAccessible(page);
  await snap(page, "members-change-role");
  await item.getByRole("button", { name: "Save role" }).click();
  await expect(item.getByRole("button", { name: "Change role…" })).toBeVisible();
  await expect(item).toContainText("Custom");
  await expect(item).toContainText("Permissions: assets:read, assets:review");

  await item.getByRole("button", { name: "Remove…" }).click();
  const confirm = item.getByRole("group", { name: `Confirm removing ${name}` });
  await expect(confirm.getByRole("button", { name: "Remove member" })).toBeFocused();
  await confirm.getByRole("button", { name: "Keep it" }).click();
  await item.getByRole("button", { name: "Remove…" }).click();
  await item.getByRole("button", { name: "Remove member" }).click();
  await expect(memberItem(page, name)).toHaveCount(0);

  // The owner has no role change or removal.
  const owner = page.getByTestId("member-item").filter({ hasText: "Owner" });
  await expect(owner).toContainText("cannot be removed");
  await expect(owner.getByRole("button")).toHaveCount(0);
});

test("revoked, used-up and made-up links answer a clear page", async ({ page, env, browser }) => {
  await signIn(page, env.users.admin, membersUrl(env));
  const link = await createInvitation(page, "Admin");
  const item = page.getByTestId("invitation-item").filter({ hasText: "Admin invitation" }).first();
  await item.getByRole("button", { name: "Revoke…" }).click();
  await item.getByRole("button", { name: "Revoke link" }).click();
  await expect(page.getByTestId("invitation-item").filter({ hasText: "Admin invitation" })).toHaveCount(0);

  const guest = await anonymousPage(browser);
  await guest.goto(link);
  await expect(guest.getByTestId("invitation-unusable")).toContainText("revoked");
  await expect(guest.getByLabel("Password")).toHaveCount(0);
  await expectAccessible(guest);
  await snap(guest, "members-invite-revoked");
  await guest.goto(`/invite/${"x".repeat(43)}`);
  await expect(guest.getByTestId("invitation-unusable")).toContainText("not valid");
  await guest.context().close();
});

test("a failed load shows the error with a retry; members are told the page is for admins", async ({ page, env }) => {
  await signIn(page, env.users.admin);
  let fail = true;
  await page.route("**/api/portal/projects/*/members", (route) =>
    fail ? route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ code: "service/unavailable", message: "A dependency of the service is unavailable.", traceId: "t" }) }) : route.continue(),
  );
  await page.goto(membersUrl(env));
  await expect(page.getByTestId("error-state")).toContainText("Could not load the members");
  await expectAccessible(page);
  fail = false;
  await page.getByRole("button", { name: "Try again" }).click();
  await expect(page.getByTestId("member-item").first()).toBeVisible();

  await page.context().clearCookies();
  await signIn(page, env.users.member, membersUrl(env));
  await expect(page.getByTestId("not-allowed")).toContainText("Only project admins manage members");
  await expect(page.getByTestId("nav-members")).toHaveCount(0);
  await expectAccessible(page);
});

test("the members page on a phone", async ({ page, env }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, env.users.admin, membersUrl(env));
  await expect(page.getByTestId("member-item").first()).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await snap(page, "members-phone");
});
