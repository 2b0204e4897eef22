import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { Api } from "./seed";
import { expect, expectAccessible, signIn, snap, test } from "./support";

/** The owner console's API keys page (issue #12 requirement 5). */

const keysUrl = (projectId: string) => `/projects/${projectId}/keys`;
const keyItem = (page: Page, name: string) => page.getByTestId("key-item").filter({ has: page.getByRole("heading", { name, exact: true }) });

async function createKey(page: Page, name: string, preset: "All permissions" | "Read-only"): Promise<string> {
  await page.getByRole("button", { name: "New API key" }).click();
  const form = page.getByRole("form", { name: "New API key" });
  await form.getByLabel("Name").fill(name);
  await form.getByRole("button", { name: preset }).click();
  await form.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("secret-panel")).toBeVisible();
  return (await page.getByTestId("secret-value").textContent()) ?? "";
}

test("an admin creates a key, sees its secret once, copies it, and the list shows its last use", async ({ page, env, context }) => {
  const project = env.console.keys;
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  await signIn(page, env.users.admin, keysUrl(project.id));
  await expect(page.getByRole("heading", { name: "API keys", level: 1 })).toBeVisible();
  await expect(page.getByRole("link", { name: "API keys" })).toHaveAttribute("aria-current", "page");

  await page.getByRole("button", { name: "New API key" }).click();
  await expect(page.getByRole("checkbox", { name: /connectors:write/ })).toBeChecked();
  await page.getByRole("button", { name: "Read-only" }).click();
  await expect(page.getByRole("checkbox", { name: /assets:write/ })).not.toBeChecked();
  await expect(page.getByRole("checkbox", { name: /assets:read/ })).toBeChecked();
  await page.getByRole("checkbox", { name: /events:write/ }).check();
  const name = `Reporting ${randomUUID().slice(0, 8)}`;
  await page.getByLabel("Name").fill(name);
  await page.getByLabel(/Rate limit/).fill("5");
  await expectAccessible(page);
  await snap(page, "keys-create-form");
  await page.getByRole("button", { name: "Create key" }).click();

  const panel = page.getByTestId("secret-panel");
  await expect(panel).toContainText("you will not see it again");
  const secret = (await page.getByTestId("secret-value").textContent()) ?? "";
  expect(secret).toMatch(/^sieve_/);
  await panel.getByRole("button", { name: "Copy" }).click();
  await expect(panel.getByText("Copied", { exact: true })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  await expectAccessible(page);
  await snap(page, "keys-secret-once");
  await panel.getByRole("button", { name: /Done/ }).click();
  await expect(page.getByTestId("secret-value")).toHaveCount(0);
  expect(await page.content()).not.toContain(secret);

  const item = keyItem(page, name);
  await expect(item).toContainText(secret.slice(0, 12));
  await expect(item.getByTestId("key-last-used")).toHaveText("Never");
  await expect(item.getByRole("list", { name: `Permissions of ${name}` }).getByRole("listitem")).toHaveText([
    "assets:read",
    "assets:download",
    "events:read",
    "events:write",
    "connectors:read",
  ]);
  await expect(item).toContainText("5 per second");

  // The key works with what was chosen; its use shows in the list.
  await new Api(env.baseUrl, secret).call("GET", `/projects/${project.id}/folders`);
  // Each try reloads, waits for the list (a slow machine takes over half a second to show it), then
  // reads the key's last use: it is recorded a moment after the call.
  await expect(async () => {
    await page.reload();
    const lastUsed = keyItem(page, name).getByTestId("key-last-used");
    await expect(lastUsed).toBeVisible();
    await expect(lastUsed).not.toHaveText("Never", { timeout: 500 });
  }).toPass({ timeout: 30_000 });
  expect(await page.content()).not.toContain(secret);
  await expectAccessible(page);
  await snap(page, "keys-list");
});

test("revoking asks first, and the key stops working at its next request", async ({ page, env }) => {
  const project = env.console.keys;
  await signIn(page, env.users.admin, keysUrl(project.id));
  const name = `Old uploader ${randomUUID().slice(0, 8)}`;
  const secret = await createKey(page, name, "All permissions");
  await page.getByRole("button", { name: /Done/ }).click();
  const api = new Api(env.baseUrl, secret);
  await api.call("GET", `/projects/${project.id}/folders`);

  const item = keyItem(page, name);
  await item.getByRole("button", { name: "Revoke…" }).click();
  const confirm = item.getByRole("group", { name: `Confirm revoking ${name}` });
  await expect(confirm).toContainText("stop working at their next request");
  await expect(confirm.getByRole("button", { name: "Revoke key" })).toBeFocused();
  await expectAccessible(page);
  await snap(page, "keys-revoke-confirm");
  await confirm.getByRole("button", { name: "Keep it" }).click();
  await expect(item).toContainText("Active");
  await api.call("GET", `/projects/${project.id}/folders`);

  await item.getByRole("button", { name: "Revoke…" }).click();
  await item.getByRole("button", { name: "Revoke key" }).click();
  await expect(item).toContainText("Revoked");
  await expect(item.getByRole("button", { name: /Revoke/ })).toHaveCount(0);
  const response = await fetch(`${env.baseUrl}/v1/projects/${project.id}/folders`, { headers: { "X-Api-Key": secret } });
  expect(response.status).toBe(401);
  expect(((await response.json()) as { code: string }).code).toBe("auth/invalid-api-key");
  await expectAccessible(page);
});

test("the form explains what is missing, and a refused creation shows the route's message", async ({ page, env }) => {
  await signIn(page, env.users.admin, keysUrl(env.console.keys.id));
  await page.getByRole("button", { name: "New API key" }).click();
  const form = page.getByRole("form", { name: "New API key" });
  await form.getByRole("button", { name: "Create key" }).click();
  await expect(form.getByRole("alert")).toHaveText("Give the key a name, e.g. the program that will use it.");
  await form.getByLabel("Name").fill("Nothing allowed");
  await form.getByRole("button", { name: "Clear" }).click();
  await form.getByRole("button", { name: "Create key" }).click();
  await expect(form.getByRole("alert")).toHaveText("Choose at least one permission.");
  await form.getByRole("button", { name: "Read-only" }).click();
  await form.getByLabel(/Rate limit/).fill("0");
  await form.getByRole("button", { name: "Create key" }).click();
  await expect(form.getByRole("alert")).toContainText("whole number from 1 to 10000");
  await expectAccessible(page);
  await snap(page, "keys-form-errors");

  // The server refuses (here: the session ended meanwhile); the form keeps what was typed.
  await form.getByLabel(/Rate limit/).fill("");
  await page.route("**/api/portal/projects/*/keys", (route) =>
    route.request().method() === "POST"
      ? route.fulfill({ status: 401, contentType: "application/json", body: JSON.stringify({ code: "auth/not-signed-in", message: "Sign in to continue (the portal session is missing or has expired).", traceId: "t" }) })
      : route.continue(),
  );
  await form.getByRole("button", { name: "Create key" }).click();
  await expect(form.getByRole("alert")).toContainText("The key was not created: Sign in to continue");
  await expect(form.getByLabel("Name")).toHaveValue("Nothing allowed");
  await expect(page.getByTestId("secret-panel")).toHaveCount(0);
});

test("a failed load shows the error with a retry, and an empty project says so", async ({ page, env }) => {
  await signIn(page, env.users.admin);
  let fail = true;
  await page.route("**/api/portal/projects/*/keys", (route) =>
    fail ? route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ code: "service/unavailable", message: "A dependency of the service is unavailable.", traceId: "t" }) }) : route.continue(),
  );
  await page.goto(keysUrl(env.console.keys.id));
  await expect(page.getByTestId("error-state")).toContainText("Could not load the API keys");
  await expect(page.getByTestId("error-state")).toContainText("A dependency of the service is unavailable.");
  await expectAccessible(page);
  await snap(page, "keys-load-error");
  fail = false;
  await page.getByRole("button", { name: "Try again" }).click();
  await expect(page.getByTestId("key-item").first()).toBeVisible();

  await page.route("**/api/portal/projects/*/keys", (route) => route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ keys: [] }) }));
  await page.reload();
  await expect(page.getByTestId("empty-state")).toContainText("No API keys yet");
});

test("members are told the page is for admins; people outside the project get not-found", async ({ page, env }) => {
  await signIn(page, env.users.member, keysUrl(env.console.keys.id));
  await expect(page.getByTestId("not-allowed")).toContainText("Only project admins manage API keys.");
  await expect(page.getByTestId("nav-keys")).toHaveCount(0);
  await expect(page.getByTestId("key-item")).toHaveCount(0);
  await expectAccessible(page);
  await snap(page, "keys-member-not-allowed");

  await page.context().clearCookies();
  await signIn(page, env.users.viewer);
  await page.goto(keysUrl(env.console.keys.id));
  await expect(page.getByText(/not found|could not be found|404/i).first()).toBeVisible();
});

test("the keys page on a phone", async ({ page, env }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, env.users.admin, keysUrl(env.console.keys.id));
  await expect(page.getByTestId("key-item").first()).toBeVisible();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await snap(page, "keys-phone");
});
