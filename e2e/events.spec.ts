import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { adminCli, Api } from "./seed";
import { expect, expectAccessible, signIn, snap, test } from "./support";
import type { E2eEnv } from "./env";

/** The events inbox (issue #12 requirement 4): polling, filters, read state one and many, the nav count, roles, errors. */

const BENIGN = "Thanks for the lovely afternoon at the lake, see you next week!";
const THREAT = "I will kill you tomorrow, you worthless idiot.";

const inboxPath = (env: E2eEnv) => `/projects/${env.console.events.id}/events`;
const eventRows = (page: Page) => page.getByTestId("event-row");
const rowsOf = (page: Page, name: string) => eventRows(page).filter({ hasText: name });
const navEvents = (page: Page) => page.getByTestId("nav-events");

/** Uploads a text through /v1 (decided within the request): benign → uploaded + classified; threat adds flagged. */
async function upload(env: E2eEnv, plainText: string): Promise<{ id: string; name: string }> {
  const { id: projectId, apiKey } = env.console.events;
  const name = `inbox-${randomUUID().slice(0, 8)}.txt`;
  const asset = await new Api(env.baseUrl, apiKey).call("POST", `/projects/${projectId}/assets?queue=false`, { name, content: { type: "text/plain", plainText } });
  return { id: asset.id as string, name };
}

/** Opens the inbox as the admin with nothing unread, so counts start from zero. */
async function openCleanInbox(page: Page, env: E2eEnv): Promise<void> {
  await signIn(page, env.users.admin, inboxPath(env));
  await expect(page.getByRole("heading", { name: "Events", level: 1 })).toBeVisible();
  const markAll = page.getByRole("button", { name: "Mark all read" });
  await expect(page.getByTestId("unread-summary")).not.toHaveText("Counting unread events…");
  if (await markAll.isEnabled()) await markAll.click();
  await expect(page.getByTestId("unread-summary")).toHaveText("No unread events.");
  await expect(navEvents(page)).toHaveAccessibleName("Events");
}

test("new events appear without a reload, marked New, counted in the navigation, linking to their asset", async ({ page, env }) => {
  await openCleanInbox(page, env);
  const asset = await upload(env, BENIGN);
  // No reload: the inbox's polling brings them in.
  await expect(rowsOf(page, asset.name)).toHaveCount(2);
  // Newest first: the upload's events are on top, marked New.
  await expect(eventRows(page).first()).toContainText(asset.name);
  await expect(rowsOf(page, asset.name).first()).toContainText("New");
  await expect(rowsOf(page, asset.name).first()).toHaveAttribute("data-unread", "true");
  await expect(page.getByTestId("events-status")).toContainText("arrived");
  await expect(navEvents(page)).toHaveAccessibleName("Events 2 unread");
  await expect(page.getByTestId("unread-summary")).toHaveText("2 events unread, 0 of high severity.");
  await snap(page, "events-new-arrivals");
  await expectAccessible(page);

  await rowsOf(page, asset.name).first().getByRole("link", { name: `Open asset “${asset.name}”` }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${env.console.events.id}/assets/${asset.id}$`));
  await expect(page.getByTestId("asset-name")).toHaveText(asset.name);
});

test("filters by type, severity and read state, with an empty state when nothing matches", async ({ page, env }) => {
  await openCleanInbox(page, env);
  const threat = await upload(env, THREAT);
  await expect(rowsOf(page, threat.name)).toHaveCount(3);
  await expect(navEvents(page)).toHaveAccessibleName("Events 3 unread, 1 of high severity");

  await page.getByLabel("Severity").selectOption("high");
  await expect(rowsOf(page, threat.name)).toHaveCount(1);
  for (const row of await eventRows(page).all()) await expect(row).toContainText("High severity");

  await page.getByLabel("Severity").selectOption("");
  await page.getByLabel("Type").selectOption("asset.uploaded");
  await expect(rowsOf(page, threat.name)).toHaveCount(1);
  for (const row of await eventRows(page).all()) await expect(row).toHaveAttribute("data-event-type", "asset.uploaded");
  await snap(page, "events-filtered");
  await expectAccessible(page);

  // Read state: once the upload event is read it leaves "Unread only" and shows under "Read only".
  await rowsOf(page, threat.name).getByRole("button", { name: /^Mark read/ }).click();
  await page.getByLabel("Read state").selectOption("unread");
  await expect(rowsOf(page, threat.name)).toHaveCount(0);
  await page.getByLabel("Read state").selectOption("read");
  await expect(rowsOf(page, threat.name)).toHaveCount(1);

  await page.getByLabel("Type").selectOption("usage.limit-reached");
  await expect(page.getByTestId("empty-state")).toContainText("No events match these filters");
  await snap(page, "events-empty-filter");
  await expectAccessible(page);
  await page.getByRole("button", { name: "Reset filters" }).click();
  await expect(rowsOf(page, threat.name)).toHaveCount(3);
});

test("marks one and many read and unread; the navigation count follows", async ({ page, env }) => {
  await openCleanInbox(page, env);
  const asset = await upload(env, BENIGN);
  const mine = rowsOf(page, asset.name);
  await expect(mine).toHaveCount(2);
  await expect(navEvents(page)).toHaveAccessibleName("Events 2 unread");

  await mine.first().getByRole("button", { name: /^Mark read/ }).click();
  await expect(mine.first()).toHaveAttribute("data-unread", "false");
  await expect(navEvents(page)).toHaveAccessibleName("Events 1 unread");
  await mine.first().getByRole("button", { name: /^Mark unread/ }).click();
  await expect(navEvents(page)).toHaveAccessibleName("Events 2 unread");

  for (const row of await mine.all()) await row.getByRole("checkbox").check();
  await expect(page.getByTestId("selected-count")).toHaveText("2 selected");
  await page.getByRole("button", { name: "Mark selected read" }).click();
  await expect(page.getByTestId("events-status")).toHaveText("2 events marked read.");
  await expect(mine.nth(0)).toHaveAttribute("data-unread", "false");
  await expect(mine.nth(1)).toHaveAttribute("data-unread", "false");
  await expect(navEvents(page)).toHaveAccessibleName("Events");

  for (const row of await mine.all()) await row.getByRole("checkbox").check();
  await page.getByRole("button", { name: "Mark selected unread" }).click();
  await expect(page.getByTestId("events-status")).toHaveText("2 events marked unread.");
  await expect(navEvents(page)).toHaveAccessibleName("Events 2 unread");

  await page.setViewportSize({ width: 390, height: 844 });
  await snap(page, "events-phone");
  await expectAccessible(page);
  await page.getByRole("button", { name: "Mark all read" }).click();
  await expect(navEvents(page)).toHaveAccessibleName("Events");
  await expect(page.getByTestId("unread-summary")).toHaveText("No unread events.");
});

test("a viewer reads the inbox but cannot mark, and is told why", async ({ page, env }) => {
  await signIn(page, env.users.viewer, `/projects/${env.projects.review.id}/events`);
  await expect(eventRows(page).first()).toBeVisible();
  await expect(page.getByTestId("no-mark-permission")).toContainText("events:write");
  await expect(page.getByRole("button", { name: /Mark/ })).toHaveCount(0);
  await expect(page.getByRole("checkbox")).toHaveCount(0);
  await snap(page, "events-viewer");
  await expectAccessible(page);
});

test("a custom member without events:read is refused the page, and the navigation has no Events link", async ({ page, env }) => {
  const email = `no-events-${randomUUID().slice(0, 8)}@e2e.sieve.test`;
  const password = "No-events-Pa55word!";
  const args = ["create-user", "--email", email, "--password", password, "--name", "Nora Noevents", "--project", env.console.events.id, "--role", "custom"];
  const { userId } = await adminCli(env.databaseUrl, env.dataDir, [...args, "--permissions", "assets:read"]);
  await signIn(page, { email, password, name: "Nora Noevents", userId: userId as string }, inboxPath(env));
  await expect(page.getByTestId("not-allowed")).toContainText("events:read");
  await expect(navEvents(page)).toHaveCount(0);
  await expect(eventRows(page)).toHaveCount(0);
  await snap(page, "events-not-allowed");
  await expectAccessible(page);
});

test("a non-member gets the not-found page", async ({ page, env }) => {
  await signIn(page, env.users.outsider);
  await page.goto(inboxPath(env));
  await expect(page.getByText(/not found|could not be found|404/i).first()).toBeVisible();
  await expect(eventRows(page)).toHaveCount(0);
});

test("shows the route's message when loading or marking fails, and recovers", async ({ page, env }) => {
  await signIn(page, env.users.member, "/projects");
  const failure = { status: 503, contentType: "application/json", body: JSON.stringify({ code: "service/unavailable", message: "The database is not answering.", traceId: "t" }) };
  await page.route("**/api/portal/projects/*/events?**", (route) => route.fulfill(failure));
  await page.route("**/api/portal/projects/*/events", (route) => route.fulfill(failure));
  await page.goto(inboxPath(env));
  await expect(page.getByTestId("error-state")).toContainText("The database is not answering.");
  await snap(page, "events-load-error");
  await expectAccessible(page);
  await page.unrouteAll();
  await page.getByRole("button", { name: "Try again" }).click();
  await expect(eventRows(page).first()).toBeVisible();

  await page.route("**/api/portal/projects/*/events/read", (route) => route.fulfill(failure));
  await eventRows(page).first().getByRole("button", { name: /^Mark (read|unread)/ }).click();
  const refused = page.getByTestId("error-state");
  await expect(refused).toContainText(/Could not mark “.+” (read|unread); nothing was changed/);
  await expect(refused).toContainText("The database is not answering.");
  await snap(page, "events-mark-error");
  await expectAccessible(page);
});
