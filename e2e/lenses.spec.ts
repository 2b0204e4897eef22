import type { Page } from "@playwright/test";
import { adminCli, Api, samplePng } from "./seed";
import { expect, expectAccessible, signIn, snap, test } from "./support";

/**
 * The lenses page (/projects/:id/lenses): built-in lenses read-only, create, edit with a version
 * bump and a clear conflict, activate/deactivate, the live preview through the CDN (portal session)
 * on an approved image of the project, the API's validation in words, and read-only viewers.
 * Lenses cannot be deleted (the API has no delete); deactivating is how one is retired.
 */

const open = async (page: Page, projectId: string) => {
  await page.goto(`/projects/${projectId}/lenses`);
  await expect(page.getByRole("heading", { name: "Lenses", level: 1 })).toBeVisible();
  await expect(page.getByTestId("lens").first()).toBeVisible();
};
const row = (page: Page, identifier: string) => page.locator(`[data-testid="lens"][data-identifier="${identifier}"]`);
/** The image loaded: the CDN answered with a decodable image. */
const loaded = (page: Page, name: RegExp) =>
  expect.poll(() => page.getByRole("img", { name }).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), { timeout: 20_000 }).toBeGreaterThan(0);

test.describe("lenses page", () => {
  test.describe.configure({ timeout: 120_000 });

  test("an admin creates a lens, previews it through the CDN, meets a version conflict, saves a new version and deactivates it", async ({ page, env }) => {
    const project = env.console.lenses;
    const api = new Api(env.baseUrl, project.apiKey);
    const sampleId = await api.queuedAsset(project.id, "lens-sample.png", { type: "image/png", base64: (await samplePng()).toString("base64") }, false);
    expect((await api.call("GET", `/assets/${sampleId}`)).status).toBe("approved");
    const identifier = `square-${Date.now().toString(36)}`;

    await signIn(page, env.users.admin);
    await open(page, project.id);
    await expect(row(page, "thumbnail")).toContainText("Built-in, read-only");
    await expect(row(page, "thumbnail").getByRole("button")).toHaveCount(0);
    await expectAccessible(page);
    await snap(page, "lenses-list");

    await page.getByRole("button", { name: "New lens" }).click();
    const form = page.getByTestId("lens-form");
    await form.getByLabel("Identifier").fill(identifier);
    await form.getByLabel("Name", { exact: true }).fill("Small square");
    await form.getByLabel("Width (px)").fill("64");
    await form.getByLabel("Height (px)").fill("64");
    await form.getByLabel("Fit").selectOption("cover");
    await form.getByLabel("Format").selectOption("webp");
    await form.getByLabel("Quality (1–100)").fill("500");
    await form.getByRole("button", { name: "Create lens" }).click();
    await expect(form.getByTestId("lens-form-error")).toContainText("quality");
    await form.getByLabel("Quality (1–100)").fill("");
    await loaded(page, /through imageTransform\[width=64,height=64,fit=cover,format=webp\]/);
    await form.getByRole("button", { name: "Create lens" }).click();
    await expect(page.getByTestId("lens-outcome")).toHaveText(`Saved ${identifier} as version 1.`);
    await expect(row(page, identifier)).toContainText("Active");

    await row(page, identifier).getByRole("button", { name: `Edit ${identifier}` }).click();
    await expect(form.getByRole("heading")).toHaveText(`Edit ${identifier} (version 1 → 2)`);
    await loaded(page, new RegExp(`through @${identifier}$`));
    await form.getByLabel("Width (px)").fill("32");
    await expect(form.getByText("imageTransform[width=32,height=64,fit=cover,format=webp]")).toBeVisible();
    await loaded(page, /through imageTransform\[width=32,/);
    await expectAccessible(page);
    await snap(page, "lenses-edit-preview");

    // Someone else saves version 2 meanwhile: this form's version 2 is refused, in words.
    await api.call("PUT", `/lenses/${identifier}`, { identifier, name: "Changed elsewhere", type: "image", active: true, version: 2 });
    await form.getByRole("button", { name: "Save as version 2" }).click();
    await expect(form.getByTestId("lens-form-error")).toContainText("Someone changed this lens meanwhile — reload to see version 2");
    await expectAccessible(page);
    await snap(page, "lenses-conflict");

    await expect(row(page, identifier)).toContainText("Changed elsewhere");
    await form.getByRole("button", { name: "Reload the saved lens" }).click();
    await expect(form.getByRole("heading")).toHaveText(`Edit ${identifier} (version 2 → 3)`);
    await expect(form.getByLabel("Name", { exact: true })).toHaveValue("Changed elsewhere");
    await form.getByLabel("Name", { exact: true }).fill("Small square again");
    await form.getByLabel("Width (px)").fill("48");
    await form.getByRole("button", { name: "Save as version 3" }).click();
    await expect(page.getByTestId("lens-outcome")).toHaveText(`Saved ${identifier} as version 3.`);
    await expect(row(page, identifier)).toContainText("width=48");

    await row(page, identifier).getByRole("button", { name: `Deactivate ${identifier}` }).click();
    await expect(page.getByTestId("lens-outcome")).toHaveText(`${identifier} is inactive (version 4).`);
    await expect(row(page, identifier)).toContainText("Inactive");
    await row(page, identifier).getByRole("button", { name: `Activate ${identifier}` }).click();
    await expect(page.getByTestId("lens-outcome")).toHaveText(`${identifier} is active (version 5).`);
  });

  test("a lens of several steps: added, saved in order, kept through deactivation, edited back to one step", async ({ page, env }) => {
    const project = env.console.lenses;
    const identifier = `chain-${Date.now().toString(36)}`;
    await signIn(page, env.users.admin);
    await open(page, project.id);

    await page.getByRole("button", { name: "New lens" }).click();
    const form = page.getByTestId("lens-form");
    await form.getByLabel("Identifier").fill(identifier);
    await form.getByLabel("Name", { exact: true }).fill("Crop then shrink");
    await form.getByLabel("Width (px)").fill("200");
    await form.getByLabel("Height (px)").fill("200");
    await form.getByLabel("Fit").selectOption("cover");
    await form.getByRole("button", { name: "Add a step" }).click();
    const second = form.getByRole("group", { name: /Step 2 of 2/ });
    await second.getByLabel("Width (px)").fill("50");
    await second.getByLabel("Format").selectOption("png");
    await expect(page.getByText("A direct transform is one step: save the lens to preview its chain.")).toBeVisible();
    await expectAccessible(page);
    await snap(page, "lenses-steps");
    await form.getByRole("button", { name: "Create lens" }).click();
    await expect(page.getByTestId("lens-outcome")).toHaveText(`Saved ${identifier} as version 1.`);
    await expect(row(page, identifier)).toContainText("imageTransform width=200, height=200, fit=cover; imageTransform width=50, format=png");

    // Deactivating keeps both steps (the whole definition is saved one version up).
    await row(page, identifier).getByRole("button", { name: `Deactivate ${identifier}` }).click();
    await expect(row(page, identifier)).toContainText("Inactive");
    await expect(row(page, identifier)).toContainText("; imageTransform width=50, format=png");

    await row(page, identifier).getByRole("button", { name: `Edit ${identifier}` }).click();
    await expect(form.getByTestId("lens-step")).toHaveCount(2);
    await form.getByRole("button", { name: "Remove step 1" }).click();
    await expect(form.getByTestId("lens-step")).toHaveCount(1);
    await expect(form.getByLabel("Width (px)")).toHaveValue("50");
    await form.getByRole("button", { name: "Save as version 3" }).click();
    await expect(page.getByTestId("lens-outcome")).toHaveText(`Saved ${identifier} as version 3.`);
    await expect(row(page, identifier)).not.toContainText("width=200");
  });

  test("a viewer sees the lenses read-only (on a phone); a failed load shows the route's message", async ({ page, env }) => {
    const project = env.console.lenses;
    await adminCli(env.databaseUrl, env.dataDir, ["add-member", "--project", project.id, "--user", env.users.viewer.userId, "--role", "viewer"]);
    await signIn(page, env.users.viewer);
    await page.setViewportSize({ width: 390, height: 844 });
    await open(page, project.id);
    await expect(page.getByTestId("read-only")).toContainText("lenses:write");
    await expect(page.getByRole("button", { name: "New lens" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: /^(Edit|Activate|Deactivate) / })).toHaveCount(0);
    await expectAccessible(page);
    await snap(page, "lenses-viewer-phone");

    await page.route(`**/api/portal/projects/${project.id}/lenses`, (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: JSON.stringify({ code: "server/internal", message: "Something broke on our side.", traceId: "t" }) }),
    );
    await page.reload();
    await expect(page.getByTestId("error-state")).toContainText("Something broke on our side.");
    await expectAccessible(page);
  });
});
