import type { Page } from "@playwright/test";
import { adminCli, Api } from "./seed";
import { expect, expectAccessible, signIn, snap, test } from "./support";
import type { E2eEnv } from "./env";

/** The folders page: the tree (create, rename, move, delete and the spec's rules), a folder's assets and moving them. */

const BENIGN = "Thanks for the lovely afternoon at the lake, see you next week!";
const unique = () => Math.random().toString(36).slice(2, 8);
const project = (env: E2eEnv) => env.console.folders;
const api = (env: E2eEnv) => new Api(env.baseUrl, project(env).apiKey);
const pagePath = (env: E2eEnv) => `/projects/${project(env).id}/folders`;

const treeItem = (page: Page, name: string) => page.getByTestId("folder-tree").getByRole("button", { name, exact: true });
const notice = (page: Page) => page.getByTestId("folder-notice");

async function createFolder(page: Page, name: string) {
  await page.getByRole("button", { name: "New folder" }).click();
  await page.getByLabel(/Name of the new folder/).fill(name);
  await page.getByRole("button", { name: "Create folder" }).click();
}

async function textAsset(env: E2eEnv, name: string): Promise<string> {
  const created = await api(env).call("POST", `/projects/${project(env).id}/assets?queue=false`, { name, content: { type: "text/plain", plainText: BENIGN } });
  return created.id as string;
}

const actionAlert = (page: Page) => page.getByTestId("folder-actions").getByRole("alert");

test("an admin creates, renames, moves and deletes folders, and the spec's rules are explained in words", async ({ page, env }) => {
  const tag = unique();
  const top = `Campaigns ${tag}`;
  const spring = `Spring ${tag}`;
  const summer = `Summer ${tag}`;
  await signIn(page, env.users.admin, pagePath(env));
  await expect(page.getByRole("heading", { name: "Folders", level: 1 })).toBeVisible();
  await expect(page.getByTestId("nav-folders")).toHaveAttribute("aria-current", "page");

  await createFolder(page, top);
  await expect(notice(page)).toContainText(`Created “${top}” at the project root.`);
  await treeItem(page, top).click();
  await expect(page.getByTestId("current-folder")).toHaveText(top);
  await createFolder(page, spring);
  await expect(notice(page)).toContainText(`Created “${spring}” in “${top}”.`);
  await expect(treeItem(page, spring)).toBeVisible();

  // Rule 1: a name is unique among its siblings.
  await createFolder(page, spring);
  await expect(actionAlert(page)).toContainText("Another folder in the same place already has this name");
  // The name rule, checked before sending.
  await page.getByLabel(/Name of the new folder/).fill("Spring/Summer");
  await page.getByRole("button", { name: "Create folder" }).click();
  await expect(actionAlert(page)).toContainText("cannot contain a slash");
  await page.getByLabel(/Name of the new folder/).fill("   ");
  await page.getByRole("button", { name: "Create folder" }).click();
  await expect(actionAlert(page)).toContainText("cannot be blank");
  await expectAccessible(page);
  await snap(page, "folders-name-error");
  await page.getByRole("button", { name: "Cancel" }).click();

  // Rename.
  await treeItem(page, spring).click();
  await page.getByRole("button", { name: "Rename" }).click();
  await page.getByLabel(`New name for “${spring}”`).fill(summer);
  await page.getByRole("button", { name: "Save name" }).click();
  await expect(notice(page)).toContainText(`Renamed to “${summer}”.`);
  await expect(treeItem(page, summer)).toBeVisible();

  // Rule 2: a folder with something in it cannot be deleted.
  await treeItem(page, top).click();
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await page.getByRole("button", { name: "Delete folder" }).click();
  await expect(actionAlert(page)).toContainText("Only empty folders can be deleted");
  await expectAccessible(page);
  await snap(page, "folders-not-empty");
  await page.getByRole("button", { name: "Cancel" }).click();

  // Rule 3: not into itself or a descendant. The picker leaves those out, so the rule shows when the
  // tree changed meanwhile: here another client moves the destination under the folder being moved.
  const other = `Other ${unique()}`;
  const otherFolder = await api(env).call("POST", `/projects/${project(env).id}/folders`, { name: other });
  await page.reload();
  await treeItem(page, top).click();
  await page.getByRole("button", { name: "Move folder to…" }).click();
  await expect(page.getByLabel(`Move “${top}” into`).locator("option", { hasText: summer })).toHaveCount(0);
  const topId = await treeItem(page, top).getAttribute("data-folder-id");
  await api(env).call("POST", `/folders/${otherFolder.id}/move`, { parentId: topId });
  await page.getByLabel(`Move “${top}” into`).selectOption({ label: other });
  await page.getByRole("button", { name: "Move folder", exact: true }).click();
  await expect(actionAlert(page)).toContainText("cannot be moved into itself or into one of its own subfolders");
  await snap(page, "folders-parent-cycle");
  await page.getByRole("button", { name: "Cancel" }).click();

  // Rule 4: moving to the project root.
  await treeItem(page, summer).click();
  await page.getByRole("button", { name: "Move folder to…" }).click();
  await page.getByLabel(`Move “${summer}” into`).selectOption({ label: "Project root (no folder)" });
  await page.getByRole("button", { name: "Move folder", exact: true }).click();
  await expect(notice(page)).toContainText(`Moved “${summer}” to the project root.`);
  const moved = (await api(env).call<{ folders: { name: string; parentId: string | null }[] }>("GET", `/projects/${project(env).id}/folders`)).folders.find((f) => f.name === summer);
  expect(moved?.parentId).toBeNull();

  // Delete an empty folder: the choice falls back to its parent.
  await treeItem(page, other).click();
  await page.getByRole("button", { name: "Delete", exact: true }).click();
  await page.getByRole("button", { name: "Delete folder" }).click();
  await expect(notice(page)).toContainText(`Deleted “${other}”.`);
  await expect(treeItem(page, other)).toHaveCount(0);
  await expect(page.getByTestId("current-folder")).toHaveText(top);
  await expectAccessible(page);
  await snap(page, "folders-tree");
});

test("assets move into a folder with the keyboard, and the folder's list filters, pages and links to the asset", async ({ page, env }) => {
  const tag = unique();
  const folder = `Inbox ${tag}`;
  const ids = [await textAsset(env, `kb-${tag}-alpha.txt`), await textAsset(env, `kb-${tag}-beta.txt`), await textAsset(env, `kb-${tag}-gamma.txt`)];
  await api(env).call("POST", `/projects/${project(env).id}/folders`, { name: folder });
  await signIn(page, env.users.member, pagePath(env));

  // The root lists assets outside any folder; narrow it to this test's assets.
  await page.getByLabel("Name contains").fill(`kb-${tag}`);
  await expect(page.getByTestId("folder-asset-row")).toHaveCount(3);
  await page.getByLabel("Order").selectOption({ label: "Name A–Z" });
  await expect(page.getByTestId("folder-asset-row").first()).toContainText("alpha");
  await expectAccessible(page);

  // Keyboard: tick two rows with Space, choose the destination, press Enter on Move.
  for (const name of ["alpha", "beta"]) {
    await page.getByRole("checkbox", { name: `Select kb-${tag}-${name}.txt` }).focus();
    await page.keyboard.press("Space");
  }
  await expect(page.getByTestId("selected-count")).toHaveText("2 selected");
  await page.getByLabel("Move selected to…").selectOption({ label: folder });
  await page.getByRole("button", { name: "Move", exact: true }).focus();
  await page.keyboard.press("Enter");
  await expect(notice(page)).toContainText(`Moved 2 assets to ${folder}.`);
  await expect(page.getByTestId("folder-asset-row")).toHaveCount(1);
  await snap(page, "folders-moved");
  for (const id of ids.slice(0, 2)) expect((await api(env).call("GET", `/assets/${id}`)).folderId).not.toBeNull();

  // The folder's own list: filters and paging.
  await treeItem(page, folder).click();
  await expect(page.getByTestId("folder-asset-row")).toHaveCount(2);
  await page.getByLabel("Per page").selectOption("10");
  await page.getByLabel("Status").selectOption({ label: "Rejected" });
  await expect(page.getByTestId("empty-state")).toContainText("No asset matches these filters.");
  await page.getByRole("button", { name: "Reset filters" }).click();
  await page.getByLabel("Type").selectOption({ label: "Text" });
  await expect(page.getByTestId("folder-asset-row")).toHaveCount(2);
  await expect(page.getByTestId("asset-page-status")).toHaveText("Page 1 of 1 · 2 assets");
  await expectAccessible(page);
  await snap(page, "folders-folder-assets");
  await page.getByRole("link", { name: `kb-${tag}-beta.txt` }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${project(env).id}/assets/${ids[1]}$`));
});

test("a folder's assets come in pages of the chosen size", async ({ page, env }) => {
  const tag = unique();
  const folder = await api(env).call("POST", `/projects/${project(env).id}/folders`, { name: `Pages ${tag}` });
  for (let i = 0; i < 11; i++) {
    const id = await textAsset(env, `page-${tag}-${String(i).padStart(2, "0")}.txt`);
    await api(env).call("POST", `/assets/${id}/move`, { folderId: folder.id });
  }
  await signIn(page, env.users.member, pagePath(env));
  await treeItem(page, `Pages ${tag}`).click();
  await page.getByLabel("Per page").selectOption("10");
  await page.getByLabel("Order").selectOption({ label: "Name A–Z" });
  await expect(page.getByTestId("asset-page-status")).toHaveText("Page 1 of 2 · 11 assets");
  await expect(page.getByTestId("folder-asset-row")).toHaveCount(10);
  await page.getByRole("button", { name: "Next page" }).click();
  await expect(page.getByTestId("asset-page-status")).toHaveText("Page 2 of 2 · 11 assets");
  await expect(page.getByTestId("folder-asset-row")).toHaveCount(1);
  await expect(page.getByTestId("folder-asset-row")).toContainText(`page-${tag}-10.txt`);
  await expect(page.getByRole("button", { name: "Next page" })).toBeDisabled();
  await page.getByRole("button", { name: "Previous page" }).click();
  await expect(page.getByTestId("folder-asset-row").first()).toContainText(`page-${tag}-00.txt`);
});

test("dragging an asset onto a folder moves it; dragging a folder into its subfolder is refused in words", async ({ page, env }) => {
  const tag = unique();
  const id = await textAsset(env, `drag-${tag}.txt`);
  const parent = await api(env).call("POST", `/projects/${project(env).id}/folders`, { name: `Drag ${tag}` });
  await api(env).call("POST", `/projects/${project(env).id}/folders`, { name: `Child ${tag}`, parentId: parent.id });
  await signIn(page, env.users.admin, pagePath(env));
  await page.getByLabel("Name contains").fill(`drag-${tag}`);
  await expect(page.getByTestId("folder-asset-row")).toHaveCount(1);

  await page.getByTestId("folder-asset-row").dragTo(treeItem(page, `Drag ${tag}`));
  await expect(notice(page)).toContainText(`Moved 1 asset to Drag ${tag}.`);
  expect((await api(env).call("GET", `/assets/${id}`)).folderId).toBe(parent.id);

  await treeItem(page, `Drag ${tag}`).dragTo(treeItem(page, `Child ${tag}`));
  await expect(notice(page)).toContainText("cannot be moved into itself or into one of its own subfolders");
});

test("a viewer sees the tree read-only with the reason; a failed load shows an error with Try again", async ({ page, env }) => {
  await adminCli(env.databaseUrl, env.dataDir, ["add-member", "--project", project(env).id, "--user", env.users.viewer.userId, "--role", "viewer"]).catch(() => undefined);
  await api(env).call("POST", `/projects/${project(env).id}/folders`, { name: `Viewer ${unique()}` });
  await signIn(page, env.users.viewer, pagePath(env));
  await expect(page.getByTestId("read-only")).toContainText("your role (viewer) does not allow changing them");
  await expect(page.getByRole("button", { name: "New folder" })).toHaveCount(0);
  await expect(page.getByRole("checkbox")).toHaveCount(0);
  await expectAccessible(page);
  await page.setViewportSize({ width: 390, height: 844 });
  await snap(page, "folders-viewer-phone");

  // The asset list's error state, then recovery with Try again.
  let fail = true;
  await page.route((url) => url.pathname.endsWith("/folders/assets"), (route) =>
    fail ? route.fulfill({ status: 500, contentType: "application/json", body: JSON.stringify({ code: "internal/error", message: "The server failed.", traceId: "t" }) }) : route.continue(),
  );
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.reload();
  await expect(page.getByTestId("error-state")).toContainText("Could not load the assets");
  await expectAccessible(page);
  await snap(page, "folders-error");
  fail = false;
  await page.getByRole("button", { name: "Try again" }).click();
  await expect(page.getByTestId("error-state")).toHaveCount(0);
});

test("an outsider gets the project's not-found page", async ({ page, env }) => {
  await signIn(page, env.users.outsider, pagePath(env));
  await expect(page.getByRole("heading", { name: "Folders", level: 1 })).toHaveCount(0);
});

test.describe("on a phone-sized screen", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("an admin's folders page fits the width and passes axe", async ({ page, env }) => {
    const tag = unique();
    const folder = await api(env).call("POST", `/projects/${project(env).id}/folders`, { name: `Phone ${tag}` });
    const id = await textAsset(env, `phone-${tag}-a-rather-long-asset-name-that-must-not-widen-the-page.txt`);
    await api(env).call("POST", `/assets/${id}/move`, { folderId: folder.id });
    await signIn(page, env.users.admin, pagePath(env));
    await treeItem(page, `Phone ${tag}`).click();
    await expect(page.getByTestId("folder-asset-row")).toHaveCount(1);
    await page.getByRole("button", { name: "Move folder to…" }).click();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), "no horizontal scrolling").toBe(true);
    await expectAccessible(page);
    await snap(page, "folders-admin-phone");
  });
});
