import { beforeAll, describe, expect, it } from "vitest";
import { BENIGN, THREAT, createText } from "./events-support";
import { portal, portalUser, queueOf, sessionCookie, type PortalUser } from "./portal-support";
import { admin, baseUrl, expectError, expectOk, newProject, type TestProject } from "./support";

/** The portal's JSON routes: session authentication, roles, the review queue and decisions. */

let p: TestProject;
let member: PortalUser;
let viewer: PortalUser;
let outsider: PortalUser;

beforeAll(async () => {
  p = await newProject();
  [member, viewer, outsider] = await Promise.all([portalUser(p, "member"), portalUser(p, "viewer", "Vic Viewer"), portalUser(null, null)]);
});

const kept = { processingOptions: { keepContentAfterProcessing: true } };

describe("portal sessions", () => {
  it("refuses a request without a session, or with an unknown one, with the error body", async () => {
    for (const cookie of [null, "sieve.session-token=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"]) {
      const res = await portal(cookie, "GET", `/projects/${p.projectId}/queue`);
      expectError(res, 401, "auth/not-signed-in");
      expect(res.headers.get("x-request-id")).toBe(res.body.traceId);
    }
  });

  it("treats an expired session as none", async () => {
    const { db } = await import("@/lib/db/client");
    const cookie = await sessionCookie(member.userId);
    await db().session.updateMany({ where: { sessionToken: cookie.split("=")[1] }, data: { expires: new Date(Date.now() - 1000) } });
    expectError(await portal(cookie, "GET", "/me"), 401, "auth/not-signed-in");
  });

  it("shows who is signed in, their projects and roles, and protective defaults", async () => {
    const me = expectOk(await portal(viewer.cookie, "GET", "/me"));
    expect(me.user).toEqual({ id: viewer.userId, email: viewer.email, name: "Vic Viewer" });
    expect(me.preferences).toEqual({ revealMediaByDefault: false, breakReminderAfter: 50 });
    expect(me.projects).toEqual([{ id: p.projectId, name: "test project", role: "viewer", permissions: ["assets:read", "assets:download", "events:read"] }]);
  });

  it("keeps preferences per user and validates them", async () => {
    const saved = expectOk(await portal(viewer.cookie, "PUT", "/me/preferences", { json: { revealMediaByDefault: true } }));
    expect(saved).toEqual({ revealMediaByDefault: true, breakReminderAfter: 50 });
    expect(expectOk(await portal(viewer.cookie, "GET", "/me")).preferences).toEqual(saved);
    expect(expectOk(await portal(member.cookie, "GET", "/me")).preferences.revealMediaByDefault).toBe(false);
    expectError(await portal(viewer.cookie, "PUT", "/me/preferences", { json: { breakReminderAfter: -1 } }), 400, "request/validation-failed");
    expectError(await portal(viewer.cookie, "PUT", "/me/preferences", { json: { theme: "dark" } }), 400, "request/validation-failed");
  });

  it("refuses cross-site writes: no Origin, another origin, or a form content type", async () => {
    const path = "/me/preferences";
    expectError(await portal(member.cookie, "PUT", path, { json: {}, headers: { Origin: "https://evil.example" } }), 403, "auth/cross-site-request");
    expectError(await portal(member.cookie, "PUT", path, { json: {}, headers: { "Sec-Fetch-Site": "cross-site" } }), 403, "auth/cross-site-request");
    const noOrigin = await fetch(`${baseUrl}/api/portal${path}`, { method: "PUT", headers: { Cookie: member.cookie, "Content-Type": "application/json" }, body: "{}" });
    expect(noOrigin.status).toBe(403);
    expect(((await noOrigin.json()) as { code: string }).code).toBe("auth/cross-site-request");
    const form = await fetch(`${baseUrl}/api/portal${path}`, {
      method: "PUT",
      headers: { Cookie: member.cookie, Origin: baseUrl, "Content-Type": "text/plain" },
      body: JSON.stringify({ revealMediaByDefault: true }),
    });
    expect(form.status).toBe(403);
    expect(((await form.json()) as { code: string }).code).toBe("auth/cross-site-request");
  });
});

describe("roles", () => {
  it("gives a custom member exactly the permissions the CLI granted", async () => {
    const email = `custom-${crypto.randomUUID()}@example.test`;
    const args = ["create-user", "--email", email, "--password", "password-1", "--name", "Cus Tom", "--project", p.projectId, "--role", "custom"];
    const { userId } = await admin(...args, "--permissions", "assets:read,assets:review");
    const cookie = await sessionCookie(userId);
    const me = expectOk(await portal(cookie, "GET", "/me"));
    expect(me.projects).toEqual([{ id: p.projectId, name: "test project", role: "custom", permissions: ["assets:read", "assets:review"] }]);
    // No assets:download: no review media.
    const asset = await createText(p, THREAT, "custom.txt", kept);
    expectError(await portal(cookie, "GET", `/projects/${p.projectId}/assets/${asset.id}/media/content`), 403, "auth/insufficient-permissions");
  });

  it("answers 404 to a user who is not a member, as if the project did not exist", async () => {
    expectError(await portal(outsider.cookie, "GET", `/projects/${p.projectId}/queue`), 404, "project/not-found");
    expectError(await portal(outsider.cookie, "GET", "/projects/not-a-uuid/queue"), 404, "project/not-found");
  });

  it("lets a viewer read the queue but not decide", async () => {
    const asset = await createText(p, THREAT, "viewer-sees.txt");
    expect((await queueOf(viewer.cookie, p.projectId)).items.some((i) => i.asset.id === asset.id)).toBe(true);
    const res = await portal(viewer.cookie, "POST", `/projects/${p.projectId}/assets/${asset.id}/review`, { json: { decision: "approve" } });
    expectError(res, 403, "auth/insufficient-permissions");
    expect(expectOk(await p.client.get(`/assets/${asset.id}`)).status).toBe("rejected");
  });
});

describe("the review queue", () => {
  it("holds what needs a person — rejected, failed, alerted — newest first, and nothing approved", async () => {
    const q = await newProject();
    const m = await portalUser(q, "member");
    const benign = await createText(q, BENIGN, "benign.txt");
    const first = await createText(q, THREAT, "first threat.txt", kept);
    const second = await createText(q, THREAT, "second threat.txt", kept);
    expect(benign.status).toBe("approved");
    const page = await queueOf(m.cookie, q.projectId);
    expect(page.items.map((i) => i.asset.name)).toEqual(["second threat.txt", "first threat.txt"]);
    expect(page.items[0]).toMatchObject({
      reason: "rejected",
      canApprove: true,
      topCategory: { category: expect.stringMatching(/^(violence|harassment)$/), likelihood: expect.stringMatching(/likely/) },
      contentUrl: `/api/portal/projects/${q.projectId}/assets/${second.id}/media/content`,
    });
    expect((await queueOf(m.cookie, q.projectId, "order=oldest")).items.map((i) => i.asset.id)).toEqual([first.id, second.id]);
  });

  it("pages by cursor without repeats or gaps, and filters by reason, type, category, likelihood and date", async () => {
    const q = await newProject();
    const m = await portalUser(q, "member");
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await createText(q, THREAT, `t${i}.txt`)).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await queueOf(m.cookie, q.projectId, `limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((i) => i.asset.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    expect((await queueOf(m.cookie, q.projectId, "reason=error")).items).toEqual([]);
    expect((await queueOf(m.cookie, q.projectId, "reason=rejected")).items).toHaveLength(5);
    expect((await queueOf(m.cookie, q.projectId, "type=image")).items).toEqual([]);
    expect((await queueOf(m.cookie, q.projectId, "type=plaintext-document&category=violence&likelihood=likely")).items).toHaveLength(5);
    expect((await queueOf(m.cookie, q.projectId, "category=sexual&likelihood=likely")).items).toEqual([]);
    expect((await queueOf(m.cookie, q.projectId, "from=2999-01-01")).items).toEqual([]);
    expect((await queueOf(m.cookie, q.projectId, "to=2999-01-01")).items).toHaveLength(5);
    expect((await queueOf(m.cookie, q.projectId, "folderId=root")).items).toHaveLength(5);
  });

  it("refuses bad filters and cursors with the error body", async () => {
    for (const query of ["limit=0", "limit=101", "category=spam", "from=yesterday", "cursor=bm90LWEtY3Vyc29y", "colour=red"]) {
      expectError(await portal(member.cookie, "GET", `/projects/${p.projectId}/queue?${query}`), 400, "request/validation-failed");
    }
  });
});

describe("decisions", () => {
  it("approving takes an item out of the queue and records who decided", async () => {
    const asset = await createText(p, THREAT, "decide-me.txt", kept);
    const res = await portal(member.cookie, "POST", `/projects/${p.projectId}/assets/${asset.id}/review`, { json: { decision: "approve", note: "context: a film quote" } });
    const decided = expectOk(res);
    expect(decided).toMatchObject({ inQueue: false, item: { asset: { id: asset.id, status: "approved" }, canApprove: false } });
    expect((await queueOf(member.cookie, p.projectId)).items.some((i) => i.asset.id === asset.id)).toBe(false);
    const detail = expectOk(await portal(member.cookie, "GET", `/projects/${p.projectId}/assets/${asset.id}`));
    const approved = detail.events.find((e: any) => e.type === "asset.approved");
    expect(approved.facts).toEqual(
      expect.arrayContaining([
        { key: "reviewer-user-id", value: member.userId },
        { key: "reviewer-name", value: member.name },
        { key: "note", value: "context: a film quote" },
      ]),
    );
    // Newest first: the decision, then what the pipeline recorded.
    expect(detail.events.map((e: any) => e.type)).toEqual(["asset.approved", "asset.flagged", "asset.classified", "asset.uploaded"]);
    // Approving again is the API's 409.
    const again = await portal(member.cookie, "POST", `/projects/${p.projectId}/assets/${asset.id}/review`, { json: { decision: "approve" } });
    expectError(again, 409, "asset/invalid-transition");
  });

  it("a decision made through the API also takes the item out of the queue; a retry would put it back", async () => {
    const asset = await createText(p, THREAT, "api-decides.txt");
    expectOk(await p.client.post(`/assets/${asset.id}/review`, { decision: "reject", note: "confirmed" }));
    expect((await queueOf(member.cookie, p.projectId)).items.some((i) => i.asset.id === asset.id)).toBe(false);
  });

  it("confirms an alerted asset: it stays approved and leaves the queue", async () => {
    const { db } = await import("@/lib/db/client");
    const asset = await createText(p, BENIGN, "alerted.txt");
    await db().asset.update({ where: { id: asset.id }, data: { flagged: true, moderationAction: "alert" } });
    const item = (await queueOf(member.cookie, p.projectId, "reason=alerted")).items.find((i) => i.asset.id === asset.id);
    expect(item).toMatchObject({ reason: "alerted", canApprove: true });
    const decided = expectOk(await portal(member.cookie, "POST", `/projects/${p.projectId}/assets/${asset.id}/review`, { json: { decision: "approve" } }));
    expect(decided).toMatchObject({ inQueue: false, item: { asset: { status: "approved" } } });
    expect((await queueOf(member.cookie, p.projectId, "reason=alerted")).items.some((i) => i.asset.id === asset.id)).toBe(false);
    // Once only; and the API's approve stays "only from rejected" (the spec's transition).
    expectError(await portal(member.cookie, "POST", `/projects/${p.projectId}/assets/${asset.id}/review`, { json: { decision: "approve" } }), 409, "asset/invalid-transition");
    const other = await createText(p, BENIGN, "alerted-api.txt");
    await db().asset.update({ where: { id: other.id }, data: { flagged: true, moderationAction: "alert" } });
    expectError(await p.client.post(`/assets/${other.id}/review`, { decision: "approve" }), 409, "asset/invalid-transition");
  });

  it("decides in bulk through a batch, reporting each item", async () => {
    const q = await newProject();
    const m = await portalUser(q, "member");
    const a = await createText(q, THREAT, "bulk a.txt");
    const b = await createText(q, THREAT, "bulk b.txt");
    const benign = await createText(q, BENIGN, "bulk approved.txt");
    const alerted = await createText(q, BENIGN, "bulk alerted.txt");
    const { db } = await import("@/lib/db/client");
    await db().asset.update({ where: { id: alerted.id }, data: { flagged: true, moderationAction: "alert" } });
    const assetIds = [a.id, b.id, benign.id, alerted.id];
    const started = await portal(m.cookie, "POST", `/projects/${q.projectId}/review-batches`, { json: { decision: "approve", assetIds } });
    expect(started.status).toBe(202);
    let batch = started.body;
    const deadline = Date.now() + 15_000;
    while (batch.status !== "completed" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      batch = expectOk(await portal(m.cookie, "GET", `/projects/${q.projectId}/review-batches/${started.body.id}`));
    }
    // An alerted asset is confirmed in bulk as it is alone; an approved one without an alert is refused.
    expect(batch.counts).toEqual({ queued: 0, succeeded: 3, failed: 1 });
    expect(batch.items.find((i: any) => i.assetId === benign.id)).toMatchObject({ status: "failed", code: "asset/invalid-transition" });
    expect((await queueOf(m.cookie, q.projectId)).items).toEqual([]);
    expect(expectOk(await q.client.get(`/assets/${a.id}`)).status).toBe("approved");
  });

  it("refuses a bulk decision from a viewer, and malformed ones", async () => {
    const asset = await createText(p, THREAT, "bulk-viewer.txt");
    expectError(await portal(viewer.cookie, "POST", `/projects/${p.projectId}/review-batches`, { json: { decision: "reject", assetIds: [asset.id] } }), 403, "auth/insufficient-permissions");
    expectError(await portal(member.cookie, "POST", `/projects/${p.projectId}/review-batches`, { json: { decision: "reject", assetIds: [] } }), 400, "request/validation-failed");
    expectError(await portal(member.cookie, "POST", `/projects/${p.projectId}/review-batches`, { json: { decision: "maybe", assetIds: [asset.id] } }), 400, "request/validation-failed");
  });
});
