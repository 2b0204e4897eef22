import type { Page } from "@playwright/test";
import { Api } from "./seed";
import { expect, expectAccessible, signIn, snap, test } from "./support";

/**
 * The connectors page (/projects/:id/connectors). The e2e server refuses loopback and private
 * webhook targets (SIEVE_ALLOW_PRIVATE_NETWORKS is off there, as in production), so no receiver
 * runs here: the refusal is tested as an error path, and deliveries go to a `.invalid` host that
 * never resolves, so every attempt fails with an error, no status code and a measured latency.
 * Successful signed deliveries are covered by tests/http/webhooks*.test.ts.
 */

const DEAD_URL = "https://hooks.sieve-e2e.invalid/events";
const unique = (prefix: string) => `${prefix} ${Date.now().toString(36)}`;

test.describe("connectors page", () => {
  test.describe.configure({ timeout: 120_000 });

  const open = async (page: Page, projectId: string) => {
    await page.goto(`/projects/${projectId}/connectors`);
    await expect(page.getByRole("heading", { name: "Connectors", level: 1 })).toBeVisible();
  };
  const card = (page: Page, name: string) => page.getByTestId("connector").filter({ has: page.getByRole("heading", { name, exact: true }) });

  test("an admin creates a webhook (loopback refused in words), sees the secret once, edits, tests, rotates, turns off, re-enables and deletes it", async ({ page, env }) => {
    const project = env.console.connectors;
    await signIn(page, env.users.admin);
    await open(page, project.id);
    await expect(page.getByTestId("empty-state").or(page.getByTestId("connector").first())).toBeVisible();
    await expectAccessible(page);
    await snap(page, "connectors-list");

    await page.getByRole("button", { name: "New connector" }).click();
    const form = page.getByTestId("connector-form");
    const name = unique("Ops webhook");
    await form.getByLabel("Name", { exact: true }).fill(name);
    await form.getByRole("textbox", { name: "Webhook URL" }).fill("http://127.0.0.1:9/hook");
    await form.getByRole("checkbox", { name: "asset.rejected" }).check();
    await form.getByRole("button", { name: "Create connector" }).click();
    await expect(form.getByTestId("connector-form-error")).toContainText("not allowed");
    await expect(form.getByTestId("connector-form-error")).toContainText("public internet");
    await expectAccessible(page);
    await snap(page, "connectors-create-refused");

    await form.getByRole("radio", { name: /^Email/ }).check();
    await expect(form.getByTestId("email-unavailable")).toBeVisible();
    await form.getByRole("radio", { name: /^Webhook/ }).check();
    await form.getByRole("textbox", { name: "Webhook URL" }).fill(DEAD_URL);
    await form.getByRole("button", { name: "Create connector" }).click();
    const notice = page.getByTestId("secret-notice");
    await expect(notice).toBeFocused();
    const secret = (await notice.getByTestId("secret-value").textContent()) ?? "";
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
    await expectAccessible(page);
    await snap(page, "connectors-secret-once");
    await notice.getByRole("button", { name: "I have stored it" }).click();
    await expect(notice).toHaveCount(0);
    // Never shown again: not in the page after a reload.
    await page.reload();
    await expect(card(page, name)).toContainText(DEAD_URL);
    await expect(page.getByText(secret)).toHaveCount(0);

    await card(page, name).getByRole("button", { name: "Edit" }).click();
    const renamed = `${name} (renamed)`;
    await page.getByTestId("connector-form").getByLabel("Name", { exact: true }).fill(renamed);
    await page.getByTestId("connector-form").getByRole("button", { name: "Save changes" }).click();
    const hook = card(page, renamed);
    await expect(hook).toContainText("asset.rejected");

    await hook.getByRole("button", { name: "Send test" }).click();
    await expect(hook.getByTestId("connector-error")).toContainText(/Test message failed \(no answer in \d+ ms\)/, { timeout: 30_000 });
    await hook.getByRole("button", { name: "Show deliveries" }).click();
    const delivery = hook.getByTestId("delivery").first();
    await expect(delivery).toContainText("failed");
    await expect(delivery).toContainText("Test message");
    await expect(delivery.getByTestId("attempt")).toHaveCount(1);
    await expect(delivery.getByTestId("attempt")).toContainText(/none\s*\d+ ms/);
    await expectAccessible(page);
    await snap(page, "connectors-test-failed");

    await hook.getByRole("button", { name: "Rotate secret" }).click();
    await expect(page.getByTestId("secret-notice")).toContainText("New signing secret");
    const rotated = await page.getByTestId("secret-value").textContent();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await expect(hook).toContainText("Previous secret");
    await page.getByRole("button", { name: "I have stored it" }).click();

    await hook.getByRole("button", { name: "Turn off" }).click();
    await expect(hook.getByTestId("disabled-reason")).toContainText("Turned off by Ada Admin in the portal");
    await expectAccessible(page);
    await snap(page, "connectors-disabled");
    await hook.getByRole("button", { name: "Re-enable" }).click();
    await expect(hook.getByTestId("disabled-reason")).toHaveCount(0);
    await expect(hook.getByTestId("connector-outcome")).toHaveText("Turned back on.");

    await hook.getByRole("button", { name: "Delete" }).click();
    await hook.getByRole("button", { name: "Delete for good" }).click();
    await expect(hook).toHaveCount(0);
  });

  test("an event's failed delivery shows every attempt and is replayed; replay waits while the connector is off", async ({ page, env }) => {
    const project = env.console.connectors;
    const api = new Api(env.baseUrl, project.apiKey);
    const name = unique("Uploads hook");
    const connector = await api.call("POST", `/projects/${project.id}/connectors`, { type: "webhook", name, url: DEAD_URL, eventTypes: ["asset.uploaded"] });

    await signIn(page, env.users.admin);
    await open(page, project.id);
    const hook = card(page, name);
    await hook.getByRole("button", { name: "Show deliveries" }).click();
    await expect(hook.getByTestId("empty-state")).toContainText("No deliveries yet");
    // The log is open and empty when the event happens: it looks again by itself and shows the delivery.
    await api.call("POST", `/projects/${project.id}/assets`, { name: "note.txt", content: { type: "text/plain", plainText: "Hello connectors" } });
    const eventDelivery = hook.getByTestId("delivery").filter({ hasText: "asset.uploaded" });
    // The dispatcher makes the delivery and its first attempt fails; the log polls while it is pending.
    await expect(eventDelivery.getByTestId("attempt").first()).toBeVisible({ timeout: 30_000 });
    // Each failed attempt counts in the connector's failure run, shown on its card: the card follows the log.
    await expect
      .poll(async () => {
        const attempts = await hook.getByTestId("attempt").count();
        return (await hook.getByText(/in a row$/).allTextContents()).join() === `${attempts} failure${attempts === 1 ? "" : "s"} in a row`;
      }, { timeout: 20_000 })
      .toBe(true);
    await expect(hook.getByText("Failing since")).toBeVisible();

    await hook.getByRole("button", { name: "Turn off" }).click();
    await expect(eventDelivery.first().getByRole("button", { name: "Replay" })).toBeDisabled();
    await expect(eventDelivery.first()).toContainText("Turn the connector back on to replay.");
    await hook.getByRole("button", { name: "Re-enable" }).click();

    await eventDelivery.first().getByRole("button", { name: "Replay" }).click();
    await expect(hook.getByText("Replay queued")).toBeVisible();
    await expect(hook.getByTestId("delivery").filter({ hasText: "(replay)" })).toHaveCount(1);
    await expectAccessible(page);
    await snap(page, "connectors-replayed");
    await api.call("DELETE", `/connectors/${connector.id as string}`);
  });

  test("a member sees connectors and deliveries read-only, with the reason; on a phone too", async ({ page, env }) => {
    const project = env.console.connectors;
    const api = new Api(env.baseUrl, project.apiKey);
    const name = unique("Read-only hook");
    await api.call("POST", `/projects/${project.id}/connectors`, { type: "webhook", name, url: DEAD_URL });
    await signIn(page, env.users.member);
    await page.setViewportSize({ width: 390, height: 844 });
    await open(page, project.id);
    await expect(page.getByTestId("read-only")).toContainText("connectors:write");
    await expect(page.getByRole("button", { name: "New connector" })).toHaveCount(0);
    const hook = card(page, name);
    await expect(hook.getByRole("button", { name: "Edit" })).toHaveCount(0);
    await hook.getByRole("button", { name: "Show deliveries" }).click();
    await expect(hook.getByTestId("empty-state")).toContainText("No deliveries yet");
    await expectAccessible(page);
    await snap(page, "connectors-member-phone");
  });

  test("a failed load shows the route's message and a retry; a non-member gets not found", async ({ page, env }) => {
    const project = env.console.connectors;
    await signIn(page, env.users.admin);
    let fail = true;
    await page.route(`**/api/portal/projects/${project.id}/connectors?*`, async (route) => {
      if (!fail) return route.continue();
      await route.fulfill({ status: 503, contentType: "application/json", body: JSON.stringify({ code: "server/unavailable", message: "Sieve is restarting.", traceId: "t" }) });
    });
    await open(page, project.id);
    await expect(page.getByTestId("error-state")).toContainText("Sieve is restarting.");
    await expectAccessible(page);
    await snap(page, "connectors-load-error");
    fail = false;
    await page.getByRole("button", { name: "Try again" }).click();
    await expect(page.getByTestId("error-state")).toHaveCount(0);

    await page.context().clearCookies();
    await signIn(page, env.users.viewer);
    await page.goto(`/projects/${project.id}/connectors`);
    await expect(page.getByText(/could not be found/i).first()).toBeVisible();
  });
});
