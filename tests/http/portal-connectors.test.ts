import { beforeAll, describe, expect, it } from "vitest";
import { createWebhook, HOOK_URL, seedDeliveries, seedEvent } from "./connectors-support";
import { portal, portalUser, type PortalUser } from "./portal-support";
import { expectError, expectOk, newProject, type TestProject } from "./support";

/**
 * The connectors page's JSON routes: the Connectors API's rules behind the portal session. Admins
 * change, members only read, viewers see nothing; another project's connector is refused. The
 * shared test server does not allow private networks and has no SMTP settings.
 */

let p: TestProject;
let other: TestProject;
let admin: PortalUser;
let member: PortalUser;
let viewer: PortalUser;

beforeAll(async () => {
  [p, other] = await Promise.all([newProject(), newProject()]);
  [admin, member, viewer] = await Promise.all([portalUser(p, "admin", "Ada Admin"), portalUser(p, "member"), portalUser(p, "viewer")]);
});

const path = (rest = "", project = p) => `/projects/${project.projectId}/connectors${rest}`;

describe("portal connectors", () => {
  it("creates a webhook (secret shown once), lists it without the secret, edits and deletes it", async () => {
    const created = expectOk(await portal(admin.cookie, "POST", path(), { json: { type: "webhook", name: "Ops", url: HOOK_URL, eventTypes: ["asset.rejected"] } }));
    expect(created.secret).toMatch(/^whsec_/);
    const list = expectOk(await portal(admin.cookie, "GET", path()));
    expect(list.emailAvailable).toBe(false);
    const listed = list.items.find((c: { id: string }) => c.id === created.id);
    expect(listed).toMatchObject({ name: "Ops", url: HOOK_URL, eventTypes: ["asset.rejected"], enabled: true });
    expect(listed).not.toHaveProperty("secret");

    const edited = expectOk(await portal(admin.cookie, "PATCH", path(`/${created.id}`), { json: { name: "Ops 2", eventTypes: [] } }));
    expect(edited).toMatchObject({ name: "Ops 2", eventTypes: [] });
    expectOk(await portal(admin.cookie, "DELETE", path(`/${created.id}`), { json: {} }));
    expectError(await portal(admin.cookie, "DELETE", path(`/${created.id}`), { json: {} }), 404, "connector/not-found");
  });

  it("answers the API's errors: loopback URL refused, bad body, email without SMTP, type change", async () => {
    const loopback = expectError(await portal(admin.cookie, "POST", path(), { json: { type: "webhook", name: "x", url: "http://127.0.0.1:9/hook" } }), 422, "connector/url-not-allowed");
    expect(loopback.message).toMatch(/not allowed/);
    expectError(await portal(admin.cookie, "POST", path(), { json: { type: "webhook", name: "", url: "ftp://x" } }), 400, "request/validation-failed");
    expectError(await portal(admin.cookie, "POST", path(), { json: { type: "email", name: "Mail", recipients: ["a@example.com"] } }), 422, "connector/email-not-configured");
    const hook = await createWebhook(p.client, p.projectId);
    expectError(await portal(admin.cookie, "PATCH", path(`/${hook.id}`), { json: { type: "slack" } }), 400, "request/validation-failed");
  });

  it("rotates the secret, sends a failing test with its attempt, turns off in the member's name and back on", async () => {
    const hook = await createWebhook(p.client, p.projectId);
    const rotated = expectOk(await portal(admin.cookie, "POST", path(`/${hook.id}/rotate-secret`), { json: {} }));
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);

    // example.invalid never resolves: one failed attempt with no status code and an error in words.
    const test = expectOk(await portal(admin.cookie, "POST", path(`/${hook.id}/test`), { json: {} }));
    expect(test).toMatchObject({ status: "failed", eventId: null, attempts: 1 });
    expect(test.log[0]).toMatchObject({ attempt: 1, statusCode: null });
    expect(test.log[0].error).toEqual(expect.any(String));
    expect(test.log[0].latencyMs).toBeGreaterThanOrEqual(0);

    const off = expectOk(await portal(admin.cookie, "POST", path(`/${hook.id}/disable`), { json: {} }));
    expect(off).toMatchObject({ enabled: false, disabledReason: "Turned off by Ada Admin in the portal" });
    const on = expectOk(await portal(admin.cookie, "POST", path(`/${hook.id}/enable`), { json: {} }));
    expect(on).toMatchObject({ enabled: true, disabledReason: null });
  });

  it("lists deliveries with attempts and replays an event's delivery; refuses replay while off and of a test message", async () => {
    const hook = await createWebhook(p.client, p.projectId);
    const event = await seedEvent(p.projectId);
    const rows = await seedDeliveries(hook.id, [
      { eventId: event.id, status: "failed", attempts: 2 },
      { eventId: null, status: "failed", attempts: 1 },
    ]);
    const [failed, test] = [rows[0]!, rows[1]!];
    const page = expectOk(await portal(member.cookie, "GET", path(`/${hook.id}/deliveries?pageSize=10`)));
    expect(page.total).toBe(2);
    expect(page.items[1].log.map((a: { statusCode: number; latencyMs: number; error: string }) => [a.statusCode, a.latencyMs, a.error])).toEqual([
      [500, 10, "HTTP 500 (attempt 1)"],
      [500, 11, "HTTP 500 (attempt 2)"],
    ]);
    const replay = await portal(admin.cookie, "POST", path(`/${hook.id}/deliveries/${failed.id}/replay`), { json: {} });
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ replayOf: failed.id, eventId: event.id });
    expectError(await portal(admin.cookie, "POST", path(`/${hook.id}/deliveries/${test.id}/replay`), { json: {} }), 400, "request/validation-failed");
    expectOk(await portal(admin.cookie, "POST", path(`/${hook.id}/disable`), { json: {} }));
    expectError(await portal(admin.cookie, "POST", path(`/${hook.id}/deliveries/${failed.id}/replay`), { json: {} }), 409, "connector/disabled");
  });

  it("lets a member read but not change, and shows a viewer nothing", async () => {
    const hook = await createWebhook(p.client, p.projectId);
    expectOk(await portal(member.cookie, "GET", path()));
    expectError(await portal(member.cookie, "POST", path(), { json: { type: "webhook", name: "x", url: HOOK_URL } }), 403, "auth/insufficient-permissions");
    for (const action of ["rotate-secret", "test", "disable", "enable"]) {
      expectError(await portal(member.cookie, "POST", path(`/${hook.id}/${action}`), { json: {} }), 403, "auth/insufficient-permissions");
    }
    expectError(await portal(member.cookie, "DELETE", path(`/${hook.id}`), { json: {} }), 403, "auth/insufficient-permissions");
    expectError(await portal(viewer.cookie, "GET", path()), 403, "auth/insufficient-permissions");
    expectError(await portal(viewer.cookie, "GET", path(`/${hook.id}/deliveries`)), 403, "auth/insufficient-permissions");
  });

  it("refuses another project's connector, cross-site writes and no session", async () => {
    const theirs = await createWebhook(other.client, other.projectId);
    expectError(await portal(admin.cookie, "POST", path(`/${theirs.id}/rotate-secret`), { json: {} }), 403, "auth/project-mismatch");
    expectError(await portal(admin.cookie, "GET", path(`/${theirs.id}/deliveries`)), 403, "auth/project-mismatch");
    expectError(await portal(admin.cookie, "GET", path("", other)), 404, "project/not-found");
    const hook = await createWebhook(p.client, p.projectId);
    expectError(await portal(admin.cookie, "POST", path(`/${hook.id}/disable`), { json: {}, headers: { Origin: "https://evil.example" } }), 403, "auth/cross-site-request");
    expectError(await portal(null, "GET", path()), 401, "auth/not-signed-in");
  });
});
