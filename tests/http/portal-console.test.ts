import { beforeAll, describe, expect, it } from "vitest";
import { BENIGN, THREAT, createText } from "./events-support";
import { portal, portalUser, sessionCookie, type PortalUser } from "./portal-support";
import { expectError, expectOk, newProject, type TestProject } from "./support";

/** The owner console's project routes: creating a project in the portal, and the usage page's numbers. */

let p: TestProject;
let owner: string;
let member: PortalUser;
let viewer: PortalUser;
let outsider: PortalUser;

beforeAll(async () => {
  p = await newProject([...(await import("@/lib/auth/permissions")).PERMISSIONS], "usage project");
  owner = await sessionCookie(p.ownerUserId);
  [member, viewer, outsider] = await Promise.all([portalUser(p, "member", "Mia Member"), portalUser(p, "viewer"), portalUser(null, null)]);
});

describe("creating a project in the portal", () => {
  it("makes the owner its owner and admin; it shows up in /me with every permission", async () => {
    const created = await portal(owner, "POST", "/projects", { json: { name: "  Second project  " } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Second project", role: "admin" });
    const me = expectOk(await portal(owner, "GET", "/me"));
    expect(me.projects.map((project: { id: string }) => project.id)).toContain(created.body.id);
    const usage = expectOk(await portal(owner, "GET", `/projects/${created.body.id}/usage`));
    expect(usage.allowance.uploadsInProject).toBe(0);
    expect(usage.assetsByStatus).toEqual({});
  });

  it("refuses people who own no project, a blank or over-long name, and cross-site requests", async () => {
    const refused = expectError(await portal(member.cookie, "POST", "/projects", { json: { name: "Mine" } }), 403, "auth/insufficient-permissions");
    expect(refused.message).toMatch(/project owners/);
    expectError(await portal(owner, "POST", "/projects", { json: { name: "   " } }), 400, "request/validation-failed");
    expectError(await portal(owner, "POST", "/projects", { json: { name: "x".repeat(101) } }), 400, "request/validation-failed");
    expectError(await portal(owner, "POST", "/projects", { json: { name: "Mine", owner: "someone" } }), 400, "request/validation-failed");
    expectError(await portal(owner, "POST", "/projects", { json: { name: "Mine" }, headers: { Origin: "https://evil.example" } }), 403, "auth/cross-site-request");
    expectError(await portal(null, "POST", "/projects", { json: { name: "Mine" } }), 401, "auth/not-signed-in");
  });
});

describe("usage", () => {
  it("counts uploads, assets by status and type, decisions per day and each reviewer's decisions", async () => {
    const threat = await createText(p, THREAT, "threat.txt");
    await createText(p, BENIGN, "benign.txt");
    expect(threat.status).toBe("rejected");
    expectOk(await portal(member.cookie, "POST", `/projects/${p.projectId}/assets/${threat.id}/review`, { json: { decision: "approve" } }));

    const usage = expectOk(await portal(viewer.cookie, "GET", `/projects/${p.projectId}/usage?days=7`));
    expect(usage.windowDays).toBe(7);
    expect(usage.allowance).toMatchObject({ uploadsInProject: 2, limitReachedAt: null });
    expect(usage.allowance.used).toBeGreaterThanOrEqual(2);
    expect(usage.assetsByStatus).toEqual({ approved: 2 });
    expect(usage.assetsByType).toEqual({ "plaintext-document": 2 });
    expect(usage.awaitingReview).toBe(0);
    expect(usage.decisionsPerDay).toHaveLength(7);
    const today = usage.decisionsPerDay.at(-1);
    expect(today.day).toBe(new Date().toISOString().slice(0, 10));
    expect(today).toMatchObject({ autoApproved: 1, autoRejected: 1, reviewerApproved: 1, reviewerRejected: 0 });
    expect(usage.reviewers).toEqual([
      expect.objectContaining({ userId: member.userId, name: "Mia Member", decisions: 1, approved: 1, rejected: 0, activeDays: 1 }),
    ]);
    expect(usage.reviewers[0].medianSecondsToDecision).toBeGreaterThanOrEqual(0);
  });

  it("counts an API key's decisions apart from people's, and the review queue's length", async () => {
    const asset = await createText(p, BENIGN, "later.txt");
    expectOk(await p.client.post(`/assets/${asset.id}/review`, { decision: "reject", note: "off-topic" }));
    const usage = expectOk(await portal(member.cookie, "GET", `/projects/${p.projectId}/usage`));
    expect(usage.windowDays).toBe(30);
    expect(usage.reviewers.find((r: { userId: string | null }) => r.userId === null)).toMatchObject({ name: "API keys", rejected: 1 });
    expect(usage.assetsByStatus.rejected).toBe(1);
    expect(usage.awaitingReview).toBe(0); // decided by the key: out of the queue
    await createText(p, THREAT, "waiting.txt");
    expect(expectOk(await portal(member.cookie, "GET", `/projects/${p.projectId}/usage`)).awaitingReview).toBe(1);
  });

  it("refuses a window it does not offer, and outsiders", async () => {
    expectError(await portal(member.cookie, "GET", `/projects/${p.projectId}/usage?days=12`), 400, "request/validation-failed");
    expectError(await portal(outsider.cookie, "GET", `/projects/${p.projectId}/usage`), 404, "project/not-found");
    expectError(await portal(null, "GET", `/projects/${p.projectId}/usage`), 401, "auth/not-signed-in");
  });
});
