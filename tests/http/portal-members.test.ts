import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { acceptInvitation, invitationByToken } from "@/lib/projects/invitations";
import { allEvents, factsOf } from "./events-support";
import { portal, portalUser, sessionCookie, type PortalUser } from "./portal-support";
import { consoleCast } from "./portal-console-support";
import { baseUrl, expectError, expectOk, newProject, type TestProject } from "./support";

/** The owner console's members and invitations (/api/portal/projects/:projectId/members, /invitations). */

let p: TestProject;
let adminUser: PortalUser;
let member: PortalUser;
let viewer: PortalUser;
let outsider: PortalUser;

beforeAll(async () => {
  p = await newProject();
  ({ admin: adminUser, member, viewer, outsider } = await consoleCast(p));
});

const membersPath = (q: TestProject = p) => `/projects/${q.projectId}/members`;
const invitationsPath = (q: TestProject = p) => `/projects/${q.projectId}/invitations`;
const members = async (q: TestProject = p, cookie = adminUser.cookie) => expectOk<{ members: Record<string, any>[] }>(await portal(cookie, "GET", membersPath(q))).members;

async function invite(json: unknown, q: TestProject = p, cookie = adminUser.cookie): Promise<{ id: string; token: string }> {
  const res = await portal(cookie, "POST", invitationsPath(q), { json });
  if (res.status !== 201) throw new Error(`invite: ${res.status} ${res.text}`);
  const { invitation, path } = res.body as { invitation: { id: string }; path: string };
  expect(path).toMatch(/^\/invite\/[A-Za-z0-9_-]{43}$/);
  return { id: invitation.id, token: path.slice("/invite/".length) };
}

async function newUser(name: string) {
  return db().user.create({ data: { email: `joiner-${randomUUID()}@example.test`, name } });
}

describe("members list", () => {
  it("shows name, email, role, joined date, and who owns the project", async () => {
    const list = await members();
    expect(list.find((m) => m.userId === member.userId)).toEqual({
      userId: member.userId,
      name: "Max Member",
      email: member.email,
      role: "member",
      permissions: [],
      joinedAt: expect.any(Number),
      isOwner: false,
    });
    expect(list.find((m) => m.userId === p.ownerUserId)).toMatchObject({ role: "admin", isOwner: true });
    expect(list.map((m) => m.userId)).toEqual(expect.arrayContaining([adminUser.userId, viewer.userId]));
  });
});

describe("invitations", () => {
  it("joins with the invited role and records project.member-joined with exactly the spec's facts", async () => {
    const { id, token } = await invite({ role: "viewer" });
    const pending = await portal(adminUser.cookie, "GET", invitationsPath());
    expect(pending.text).not.toContain(token);
    expect((pending.body as { invitations: Record<string, any>[] }).invitations.find((i) => i.id === id)).toEqual({
      id,
      role: "viewer",
      permissions: [],
      invitedByName: "Ada Admin",
      createdAt: expect.any(Number),
      expiresAt: expect.any(Number),
    });
    expect((await invitationByToken(token))?.state).toBe("open");

    const joiner = await newUser("Jo Joiner");
    expect(await acceptInvitation(token, joiner.id)).toEqual({ projectId: p.projectId, role: "viewer" });
    expect((await members()).find((m) => m.userId === joiner.id)).toMatchObject({ role: "viewer", name: "Jo Joiner" });
    const events = (await allEvents(p, 0, "type=project.member-joined")).filter((e) => e.type === "project.member-joined" && e.facts[0].value === joiner.id);
    expect(events).toHaveLength(1);
    expect(factsOf(events[0])).toEqual([
      ["member-user-id", joiner.id],
      ["member-name", "Jo Joiner"],
      ["role", "viewer"],
      ["invited-by-user-id", adminUser.userId],
    ]);
    expect(events[0].userId).toBe(joiner.id);

    // Used once: a second use is refused and it leaves the pending list.
    const other = await newUser("Late Comer");
    await expect(acceptInvitation(token, other.id)).rejects.toMatchObject({ code: "invitation/unusable" });
    expect((await invitationByToken(token))?.state).toBe("accepted");
    const after = expectOk<{ invitations: { id: string }[] }>(await portal(adminUser.cookie, "GET", invitationsPath()));
    expect(after.invitations.map((i) => i.id)).not.toContain(id);
  });

  it("gives a custom invitation exactly its permission list", async () => {
    const { token } = await invite({ role: "custom", permissions: ["assets:read", "assets:review"] });
    const joiner = await newUser("Cus Tom");
    await acceptInvitation(token, joiner.id);
    const me = expectOk(await portal(await sessionCookie(joiner.id), "GET", "/me"));
    expect(me.projects).toEqual([{ id: p.projectId, name: "test project", role: "custom", permissions: ["assets:read", "assets:review"] }]);
  });

  it("refuses expired and revoked links, and keeps a link open when the user is a member already", async () => {
    const expired = await invite({ role: "member" });
    await db().invitation.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const revoked = await invite({ role: "member" });
    expectOk(await portal(adminUser.cookie, "POST", `${invitationsPath()}/${revoked.id}/revoke`, { json: {} }));
    const joiner = await newUser("Too Late");
    for (const { token } of [expired, revoked]) await expect(acceptInvitation(token, joiner.id)).rejects.toMatchObject({ code: "invitation/unusable" });
    expect((await invitationByToken(expired.token))?.state).toBe("expired");
    expect((await invitationByToken(revoked.token))?.state).toBe("revoked");
    expect(await invitationByToken("not-a-real-token-but-long-enough")).toBeNull();

    const open = await invite({ role: "admin" });
    await expect(acceptInvitation(open.token, member.userId)).rejects.toMatchObject({ code: "member/already-member" });
    expect((await invitationByToken(open.token))?.state).toBe("open");
    expect((await members()).find((m) => m.userId === member.userId)?.role).toBe("member");
    const pending = expectOk<{ invitations: { id: string }[] }>(await portal(adminUser.cookie, "GET", invitationsPath())).invitations.map((i) => i.id);
    expect(pending).toContain(open.id);
    expect(pending).not.toContain(expired.id);
    expect(pending).not.toContain(revoked.id);
  });

  it("signs up a new person with the project's password rules, in one transaction with joining", async () => {
    const { signUpWithInvitation } = await import("@/lib/portal/invitation-actions");
    const { token } = await invite({ role: "member" });
    const email = `new-${randomUUID()}@example.test`;
    expect(await signUpWithInvitation(token, { name: "New Person", email, password: "short" })).toEqual({ error: "Choose a password of at least 8 characters." });
    expect(await signUpWithInvitation(token, { name: "Dup", email: member.email, password: "long enough pass" })).toEqual({
      error: "An account with this email exists already: sign in to accept the invitation.",
    });
    const made = await signUpWithInvitation(token, { name: "New Person", email, password: "long enough pass" });
    expect(made).toEqual({ userId: expect.any(String), projectId: p.projectId });
    expect((await members()).find((m) => m.email === email)).toMatchObject({ role: "member", name: "New Person" });
    // The link is used now: another sign-up with it creates no account.
    const second = `second-${randomUUID()}@example.test`;
    expect(await signUpWithInvitation(token, { name: "Second", email: second, password: "long enough pass" })).toEqual({ error: expect.stringContaining("can no longer be used") });
    expect(await db().user.findUnique({ where: { email: second } })).toBeNull();
  });
});

describe("changing roles and removing members", () => {
  it("changes a role, including to a custom permission list, and removes a member", async () => {
    const person = await portalUser(p, "member", "Rolf Role");
    const changed = expectOk(await portal(adminUser.cookie, "PATCH", `${membersPath()}/${person.userId}`, { json: { role: "custom", permissions: ["events:read"] } }));
    expect(changed.member).toMatchObject({ userId: person.userId, role: "custom", permissions: ["events:read"] });
    expect(expectOk(await portal(person.cookie, "GET", "/me")).projects[0].permissions).toEqual(["events:read"]);
    expectOk(await portal(adminUser.cookie, "PATCH", `${membersPath()}/${person.userId}`, { json: { role: "viewer" } }));
    expect((await members()).find((m) => m.userId === person.userId)).toMatchObject({ role: "viewer", permissions: [] });

    expectOk(await portal(adminUser.cookie, "DELETE", `${membersPath()}/${person.userId}`, { json: {} }));
    expect((await members()).some((m) => m.userId === person.userId)).toBe(false);
    expectError(await portal(person.cookie, "GET", `/projects/${p.projectId}/queue`), 404, "project/not-found");
    expectError(await portal(adminUser.cookie, "DELETE", `${membersPath()}/${person.userId}`, { json: {} }), 404, "member/not-found");
  });

  it("never removes or demotes the owner, nor the last admin", async () => {
    expectError(await portal(adminUser.cookie, "PATCH", `${membersPath()}/${p.ownerUserId}`, { json: { role: "member" } }), 409, "member/owner-protected");
    expectError(await portal(adminUser.cookie, "DELETE", `${membersPath()}/${p.ownerUserId}`, { json: {} }), 409, "member/owner-protected");

    // A project whose owner holds no membership row (owner by ownership alone): its one admin member stays.
    const q = await newProject();
    await db().projectMember.delete({ where: { projectId_userId: { projectId: q.projectId, userId: q.ownerUserId } } });
    const only = await portalUser(q, "admin", "Only Admin");
    expectError(await portal(only.cookie, "PATCH", `${membersPath(q)}/${only.userId}`, { json: { role: "viewer" } }), 409, "member/last-admin");
    expectError(await portal(only.cookie, "DELETE", `${membersPath(q)}/${only.userId}`, { json: {} }), 409, "member/last-admin");
    const second = await portalUser(q, "admin", "Second Admin");
    expectOk(await portal(only.cookie, "PATCH", `${membersPath(q)}/${second.userId}`, { json: { role: "member" } }));
    expectOk(await portal(only.cookie, "PATCH", `${membersPath(q)}/${second.userId}`, { json: { role: "admin" } }));
    expectOk(await portal(only.cookie, "DELETE", `${membersPath(q)}/${only.userId}`, { json: {} }));
    expect((await members(q, second.cookie)).map((m) => m.userId)).toEqual([second.userId]);
  });

  it("refuses bad input with the spec's error body", async () => {
    const path = `${membersPath()}/${viewer.userId}`;
    for (const json of [{}, { role: "owner" }, { role: "custom" }, { role: "custom", permissions: [] }, { role: "member", permissions: ["assets:read"] }, { role: "custom", permissions: ["assets:everything"] }, { role: "viewer", extra: 1 }]) {
      expectError(await portal(adminUser.cookie, "PATCH", path, { json }), 400, "request/validation-failed");
      expectError(await portal(adminUser.cookie, "POST", invitationsPath(), { json }), 400, "request/validation-failed");
    }
    expectError(await portal(adminUser.cookie, "PATCH", `${membersPath()}/${randomUUID()}`, { json: { role: "viewer" } }), 404, "member/not-found");
    expectError(await portal(adminUser.cookie, "PATCH", `${membersPath()}/not-a-uuid`, { json: { role: "viewer" } }), 404, "member/not-found");
    expectError(await portal(adminUser.cookie, "POST", `${invitationsPath()}/${randomUUID()}/revoke`, { json: {} }), 404, "invitation/not-found");
    const other = await newProject();
    const otherAdmin = await portalUser(other, "admin");
    const theirs = await invite({ role: "member" }, other, otherAdmin.cookie);
    expectError(await portal(adminUser.cookie, "POST", `${invitationsPath()}/${theirs.id}/revoke`, { json: {} }), 404, "invitation/not-found");
    expect((await invitationByToken(theirs.token))?.state).toBe("open");
    expect((await members()).find((m) => m.userId === viewer.userId)?.role).toBe("viewer");
  });
});

describe("who may manage members", () => {
  it("refuses members and viewers (403), outsiders (404) and cross-site writes", async () => {
    const { id } = await invite({ role: "viewer" });
    for (const user of [member, viewer]) {
      expectError(await portal(user.cookie, "GET", membersPath()), 403, "auth/insufficient-permissions");
      expectError(await portal(user.cookie, "GET", invitationsPath()), 403, "auth/insufficient-permissions");
      expectError(await portal(user.cookie, "POST", invitationsPath(), { json: { role: "admin" } }), 403, "auth/insufficient-permissions");
      expectError(await portal(user.cookie, "POST", `${invitationsPath()}/${id}/revoke`, { json: {} }), 403, "auth/insufficient-permissions");
      expectError(await portal(user.cookie, "PATCH", `${membersPath()}/${user.userId}`, { json: { role: "admin" } }), 403, "auth/insufficient-permissions");
      expectError(await portal(user.cookie, "DELETE", `${membersPath()}/${adminUser.userId}`, { json: {} }), 403, "auth/insufficient-permissions");
    }
    expectError(await portal(outsider.cookie, "GET", membersPath()), 404, "project/not-found");
    expectError(await portal(null, "GET", membersPath()), 401, "auth/not-signed-in");
    expectError(await portal(adminUser.cookie, "PATCH", `${membersPath()}/${viewer.userId}`, { json: { role: "admin" }, headers: { Origin: "https://evil.example" } }), 403, "auth/cross-site-request");
    const form = await fetch(`${baseUrl}/api/portal${invitationsPath()}`, {
      method: "POST",
      headers: { Cookie: adminUser.cookie, Origin: baseUrl, "Content-Type": "text/plain" },
      body: JSON.stringify({ role: "admin" }),
    });
    expect(form.status).toBe(403);
    const list = await members();
    expect(list.find((m) => m.userId === viewer.userId)?.role).toBe("viewer");
    expect(list.find((m) => m.userId === adminUser.userId)?.role).toBe("admin");
    expect(expectOk<{ invitations: { id: string }[] }>(await portal(adminUser.cookie, "GET", invitationsPath())).invitations.map((i) => i.id)).toContain(id);
  });
});
