import { Api } from "./seed";
import { expect, expectAccessible, signIn, snap, test } from "./support";

/** The usage page (issue #12 requirement 8), in the "E2E Console usage" project. */

const THREAT = "I will kill you tomorrow, you worthless idiot.";
const BENIGN = "The bakery on the corner has fresh bread every morning.";

test("shows uploads against the allowance, assets by status and type, decisions per day and reviewers", async ({ page, env }) => {
  const project = env.console.usage;
  const api = new Api(env.baseUrl, project.apiKey);
  const upload = (name: string, plainText: string) => api.call("POST", `/projects/${project.id}/assets?queue=false`, { name, content: { type: "text/plain", plainText } });
  const threat = await upload("usage-threat.txt", THREAT);
  await upload("usage-benign.txt", BENIGN);
  expect(threat.status).toBe("rejected");
  await api.call("POST", `/assets/${threat.id}/review`, { decision: "approve", note: "a quote from a film" });

  await signIn(page, env.users.admin, `/projects/${project.id}/usage`);
  await expect(page.getByRole("heading", { name: "Usage" })).toBeVisible();
  await expect(page.getByTestId("nav-usage")).toHaveAttribute("aria-current", "page");
  await expect(page.getByText(/2 uploaded to this one/)).toBeVisible();
  await expect(page.getByTestId("assets-by-status")).toContainText("approved");
  await expect(page.getByTestId("assets-by-type")).toContainText("plaintext-document");
  await expect(page.getByTestId("decisions-chart").locator('svg.recharts-surface[role="application"]')).toBeVisible();
  await expect(page.getByTestId("decisions-chart").locator(".recharts-bar-rectangle").first()).toBeVisible();
  const reviewers = page.getByTestId("reviewer-table");
  await expect(reviewers.getByRole("row", { name: /API keys/ })).toContainText("1");

  await page.getByText("Show the numbers as a table").click();
  const today = new Date().toISOString().slice(0, 10);
  const todayRow = page.getByTestId("decisions-table").getByRole("row", { name: new RegExp(today) });
  // Approved and rejected by the pipeline (1, 1), failed 0, approved by a reviewer 1, rejected 0.
  await expect(todayRow.getByRole("cell")).toHaveText(["1", "1", "0", "1", "0"]);
  await expectAccessible(page);
  await snap(page, "usage-30-days");

  await page.getByRole("button", { name: "Last 7 days" }).click();
  await expect(page.getByRole("button", { name: "Last 7 days" })).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("decisions-table").getByRole("row")).toHaveCount(8); // header + 7 days
  await expect(page.getByRole("heading", { name: "Reviewer throughput, last 7 days" })).toBeVisible();

  await page.setViewportSize({ width: 390, height: 844 });
  await snap(page, "usage-phone");
});

test("a member sees usage too; someone outside the project gets not-found", async ({ page, env }) => {
  const project = env.console.usage;
  await signIn(page, env.users.member, `/projects/${project.id}/usage`);
  await expect(page.getByRole("heading", { name: "Usage" })).toBeVisible();
  await expect(page.getByTestId("nav-keys")).toHaveCount(0); // admin pages are not offered to a member
  await page.goto("/login");
  await page.context().clearCookies();
  await signIn(page, env.users.outsider, `/projects/${project.id}/usage`);
  await expect(page.getByText(/not found/i).first()).toBeVisible();
});
