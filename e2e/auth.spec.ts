import { expect, signIn, snap, test } from "./support";

/** Sign-in and sign-out through the login form (issue #11 requirement 1). */

test("the login page has labelled fields and the title", async ({ page }) => {
  await page.goto("/login");
  await expect(page).toHaveTitle("Sign in · Sieve");
  await expect(page.getByLabel("Email")).toBeVisible();
  await expect(page.getByLabel("Password")).toBeVisible();
  await expect(page.getByRole("button", { name: "Sign in" })).toBeEnabled();
  await snap(page, "login");
});

test("signs in, shows the user in the header, and signs out", async ({ page, env }) => {
  const { admin } = env.users;
  await signIn(page, admin);
  await expect(page).toHaveURL(/\/projects$/);
  await expect(page.getByText(admin.name).first()).toBeVisible();
  await expect(page.getByRole("link", { name: /E2E Review/ }).first()).toBeVisible();
  await snap(page, "projects");

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/login(\?|$)/);
  // The session is gone: a signed-in page sends the visitor back to the login page.
  await page.goto("/projects");
  await expect(page).toHaveURL(/\/login\?callbackUrl=%2Fprojects$/);
});

test("a wrong password shows an error and stays on the login page", async ({ page, env }) => {
  await page.goto("/login");
  await page.getByLabel("Email").fill(env.users.member.email);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  const alert = page.getByRole("alert").filter({ hasText: /\S/ });
  await expect(alert).toContainText(/invalid|incorrect|wrong/i);
  await expect(page).toHaveURL(/\/login/);
  await snap(page, "login-error");
});

test("after a failure the typed email stays, so only the password is typed again", async ({ page, env }) => {
  await page.goto("/login");
  await page.getByLabel("Email").fill(env.users.viewer.email);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: /\S/ })).toBeVisible();
  await expect(page.getByLabel("Email")).toHaveValue(env.users.viewer.email);
});

test("an unknown email gets the same error as a wrong password", async ({ page }) => {
  await page.goto("/login");
  await page.getByLabel("Email").fill("nobody@e2e.sieve.test");
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert").filter({ hasText: /\S/ })).toContainText(/invalid|incorrect|wrong/i);
});

test("repeated failures are rate limited with a message, even for the right password", async ({ page, env }) => {
  const { limited } = env.users;
  await page.goto("/login");
  const alert = page.getByRole("alert").filter({ hasText: /\S/ });
  let limitedAt = 0;
  // LOGIN_ATTEMPTS_PER_MINUTE defaults to 5 failures per email.
  for (let attempt = 1; attempt <= 8 && limitedAt === 0; attempt++) {
    await page.getByLabel("Email").fill(limited.email);
    await page.getByLabel("Password").fill(`wrong-${attempt}`);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(alert).toContainText(/invalid|incorrect|wrong|too many|try again/i);
    // The form answers each attempt; wait until the button is usable again.
    await expect(page.getByRole("button", { name: "Sign in" })).toBeEnabled();
    if (/too many|try again/i.test((await alert.textContent()) ?? "")) limitedAt = attempt;
  }
  expect(limitedAt, "no rate-limit message after 8 failed attempts").toBeGreaterThan(1);
  await snap(page, "login-rate-limited");
  // While limited, even the right password is refused.
  await page.getByLabel("Email").fill(limited.email);
  await page.getByLabel("Password").fill(limited.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(alert).toContainText(/too many|try again/i);
  await expect(page).toHaveURL(/\/login/);
});

test("after sign-in the user lands on the page that sent them to /login", async ({ page, env }) => {
  const review = `/projects/${env.projects.review.id}/review`;
  await page.goto(review);
  await expect(page).toHaveURL(new RegExp(`/login\\?callbackUrl=${encodeURIComponent(review)}$`));
  await page.getByLabel("Email").fill(env.users.member.email);
  await page.getByLabel("Password").fill(env.users.member.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(new RegExp(`${review}$`));
});

test("a callbackUrl to another site is ignored", async ({ page, env }) => {
  await page.goto(`/login?callbackUrl=${encodeURIComponent("https://evil.example/steal")}`);
  await page.getByLabel("Email").fill(env.users.member.email);
  await page.getByLabel("Password").fill(env.users.member.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(new RegExp(`^${env.baseUrl}/`));
  await expect(page).not.toHaveURL(/\/login/);
});

test("/ sends visitors to /login and signed-in users to /projects", async ({ page, env }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/login/);
  await signIn(page, env.users.viewer);
  await page.goto("/");
  await expect(page).toHaveURL(/\/projects$/);
});
