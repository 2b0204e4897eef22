import { describe, expect, it } from "vitest";
import { admin, expectOk } from "./support";

/**
 * Password sign-in as the /login action does it (lib/auth/sessions.ts checkPassword): users made by
 * the CLI, the same answer for unknown emails and wrong passwords, and failed attempts limited per
 * email and per client address. The form itself is driven in a browser by e2e/auth.spec.ts.
 */
const { checkPassword, createSession, sessionUser } = await import("@/lib/auth/sessions");
let n = 0;
const address = () => `198.51.100.${++n}`;

async function newUser(password = "correct horse battery") {
  const email = `signin-${crypto.randomUUID()}@example.test`;
  const { userId } = await admin("create-user", "--email", email, "--password", password, "--name", "Sam Signin");
  return { email, userId, password };
}

async function attempt(email: string, password: string, clientAddress = address()) {
  try {
    return { user: await checkPassword({ email, password, clientAddress }) };
  } catch (error) {
    return { code: (error as { code?: string }).code, retryAfter: (error as { headers?: Record<string, string> }).headers?.["Retry-After"] };
  }
}

describe("password sign-in", () => {
  it("accepts the CLI user's password (any email case) and creates a session that names them", async () => {
    const u = await newUser();
    const result = await attempt(u.email.toUpperCase(), u.password);
    expect(result.user).toEqual({ userId: u.userId, email: u.email, name: "Sam Signin" });
    const session = await createSession(u.userId);
    expect(await sessionUser(session.token)).toEqual({ userId: u.userId, email: u.email, name: "Sam Signin" });
    expect(session.expires.getTime() - Date.now()).toBeGreaterThan(11 * 3600_000);
  });

  it("answers a wrong password and an unknown email alike", async () => {
    const u = await newUser();
    expect(await attempt(u.email, "wrong password!")).toEqual({ code: "auth/invalid-credentials", retryAfter: undefined });
    expect(await attempt(`nobody-${crypto.randomUUID()}@example.test`, u.password)).toEqual({ code: "auth/invalid-credentials", retryAfter: undefined });
  });

  it("limits failed attempts per email, from any address; successes do not count", async () => {
    const u = await newUser();
    for (let i = 0; i < 3; i++) expect((await attempt(u.email, u.password)).user).toBeDefined();
    for (let i = 0; i < 5; i++) expect((await attempt(u.email, "guess-" + i)).code).toBe("auth/invalid-credentials");
    const limited = await attempt(u.email, u.password);
    expect(limited.code).toBe("rate-limit/exceeded");
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
  });

  it("limits failed attempts per client address across emails", async () => {
    const from = address();
    for (let i = 0; i < 20; i++) expect((await attempt(`spray-${i}@example.test`, "password1", from)).code).toBe("auth/invalid-credentials");
    expect((await attempt("spray-last@example.test", "password1", from)).code).toBe("rate-limit/exceeded");
    // Another address is not affected.
    expect((await attempt("spray-last@example.test", "password1")).code).toBe("auth/invalid-credentials");
  });

  it("set-password replaces the password and ends the user's sessions", async () => {
    const u = await newUser();
    const session = await createSession(u.userId);
    expectOk({ status: 200, body: await admin("set-password", "--email", u.email, "--password", "a new password"), headers: new Headers(), text: "" });
    expect(await sessionUser(session.token)).toBeNull();
    expect((await attempt(u.email, u.password)).code).toBe("auth/invalid-credentials");
    expect((await attempt(u.email, "a new password")).user?.userId).toBe(u.userId);
  });
});
