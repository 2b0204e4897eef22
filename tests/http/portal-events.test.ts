import { beforeAll, describe, expect, it } from "vitest";
import { BENIGN, THREAT, allEvents, createText } from "./events-support";
import { portal, portalUser, sessionCookie, type PortalUser } from "./portal-support";
import { admin, baseUrl, expectError, expectOk, newProject, type TestProject } from "./support";

/** The events inbox's portal routes: newest first, keyset pages, filters, marks, the unread count, roles. */

let p: TestProject;
let member: PortalUser;
let viewer: PortalUser;
let outsider: PortalUser;
/** The project's events, oldest first as the /v1 feed reads them: 2 member-joined, then 5 of the uploads. */
let feed: any[];
const ofType = (type: string) => feed.filter((e) => e.type === type);
const newest = (events: any[]) => events.map((e) => e.id).reverse();

beforeAll(async () => {
  p = await newProject();
  [member, viewer, outsider] = await Promise.all([portalUser(p, "member"), portalUser(p, "viewer"), portalUser(null, null)]);
  // ok: uploaded + classified (low); bad: uploaded + classified (low) + flagged (high).
  await createText(p, BENIGN, "ok.txt");
  await createText(p, THREAT, "bad.txt");
  feed = await allEvents(p, 7);
  expect(feed.map((e) => e.type)).toEqual(["project.member-joined", "project.member-joined", "asset.uploaded", "asset.classified", "asset.uploaded", "asset.classified", "asset.flagged"]);
});

const inbox = async (cookie: string, query = "") => expectOk(await portal(cookie, "GET", `/projects/${p.projectId}/events${query ? `?${query}` : ""}`));
const ids = (events: any[]) => events.map((e) => e.id);
const unreadCount = async (cookie = member.cookie) => expectOk(await portal(cookie, "GET", `/projects/${p.projectId}/events/unread-count`));
const mark = (cookie: string, eventIds: string[], read: boolean, projectId = p.projectId) =>
  portal(cookie, "POST", `/projects/${projectId}/events/read`, { json: { eventIds, read } });

describe("the inbox", () => {
  it("reads newest first, in keyset pages that neither repeat nor skip", async () => {
    const newestFirst = newest(feed);
    const all = await inbox(member.cookie);
    expect(ids(all.events)).toEqual(newestFirst);
    expect(all.nextCursor).toBeNull();
    expect(all.events[0]).toMatchObject({ type: "asset.flagged", severity: "high", readAt: null, assetId: expect.any(String) });

    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const page: any = await inbox(member.cookie, `limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      pages.push(ids(page.events));
      cursor = page.nextCursor;
    } while (cursor);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 2, 1]);
    expect(pages.flat()).toEqual(newestFirst);
  });

  it("orders by transaction as a number, not as text (txid 100 is newer than 99)", async () => {
    const { db } = await import("@/lib/db/client");
    const q = await newProject();
    const cookie = (await portalUser(q, "viewer")).cookie;
    // Events as if recorded by transactions 9, 99 and 100 (older than every real one), oldest first.
    for (const txid of [9n, 99n, 100n]) {
      await db().event.create({ data: { projectId: q.projectId, txid, type: "asset.uploaded", severity: "low", title: `tx ${txid}`, facts: [] } });
    }
    const res = expectOk(await portal(cookie, "GET", `/projects/${q.projectId}/events?type=asset.uploaded&limit=2`));
    expect(res.events.map((e: any) => e.title)).toEqual(["tx 100", "tx 99"]);
    const rest = expectOk(await portal(cookie, "GET", `/projects/${q.projectId}/events?type=asset.uploaded&limit=2&cursor=${res.nextCursor}`));
    expect(rest.events.map((e: any) => e.title)).toEqual(["tx 9"]);
    expect(rest.nextCursor).toBeNull();
  });

  it("filters by type, severity and read state", async () => {
    expect(ids((await inbox(member.cookie, "type=asset.flagged")).events)).toEqual(newest(ofType("asset.flagged")));
    const uploadedOrFlagged = feed.filter((e) => e.type === "asset.uploaded" || e.type === "asset.flagged");
    expect(ids((await inbox(member.cookie, "type=asset.uploaded,asset.flagged")).events)).toEqual(newest(uploadedOrFlagged));
    expect(ids((await inbox(member.cookie, "severity=high")).events)).toEqual(newest(ofType("asset.flagged")));
    expect(ids((await inbox(member.cookie, "severity=low")).events)).toEqual(newest(feed.slice(0, 6)));
    expect(ids((await inbox(member.cookie, "severity=low&type=project.member-joined&limit=1")).events)).toEqual([feed[1].id]);
    expect((await inbox(member.cookie, "type=usage.limit-reached")).events).toEqual([]);
    expect((await inbox(member.cookie, "unread=false")).events).toEqual([]);
  });

  it("refuses bad filters and cursors with the spec's error bodies", async () => {
    const get = (query: string) => portal(member.cookie, "GET", `/projects/${p.projectId}/events?${query}`);
    for (const query of ["type=asset.exploded", "type=", "severity=medium", "unread=yes", "limit=0", "limit=101", "order=oldest"]) {
      expectError(await get(query), 400, "request/validation-failed");
    }
    expectError(await get("cursor=not-a-cursor"), 400, "events/invalid-cursor");
  });
});

describe("read state and the unread count", () => {
  it("marks one and many read and unread; the count and the filters follow", async () => {
    const [flagged] = ofType("asset.flagged");
    const [uploaded, classified] = [feed[2], feed[3]];
    expect(await unreadCount()).toEqual({ unread: 7, unreadHigh: 1 });
    expect(expectOk(await mark(member.cookie, [flagged.id], true))).toEqual({ updated: 1 });
    expect(await unreadCount(viewer.cookie)).toEqual({ unread: 6, unreadHigh: 0 });
    // Already read: not counted again.
    expect(expectOk(await mark(member.cookie, [uploaded.id, classified.id, flagged.id], true))).toEqual({ updated: 2 });
    const read = [uploaded, classified, flagged];
    expect(ids((await inbox(member.cookie, "unread=false")).events)).toEqual(newest(read));
    expect(ids((await inbox(member.cookie, "unread=true")).events)).toEqual(newest(feed.filter((e) => !read.includes(e))));
    expect((await inbox(member.cookie, "unread=false")).events[0].readAt).toEqual(expect.any(Number));

    expect(expectOk(await mark(member.cookie, [uploaded.id, flagged.id], false))).toEqual({ updated: 2 });
    expect(await unreadCount()).toEqual({ unread: 6, unreadHigh: 1 });
    const all = await portal(member.cookie, "POST", `/projects/${p.projectId}/events/read-all`, { json: {} });
    expect(expectOk(all)).toEqual({ updated: 6 });
    expect(await unreadCount()).toEqual({ unread: 0, unreadHigh: 0 });
    // The /v1 feed sees the same state.
    expect((await allEvents(p, 7)).every((e) => e.readAt !== null)).toBe(true);
  });

  it("ignores another project's events and refuses bad bodies", async () => {
    const other = await newProject();
    await createText(other, THREAT, "elsewhere.txt");
    const [theirs] = await allEvents(other, 1);
    expect(expectOk(await mark(member.cookie, [theirs.id], true))).toEqual({ updated: 0 });
    expect((await allEvents(other, 1))[0].readAt).toBeNull();
    for (const json of [{ eventIds: [], read: true }, { eventIds: ["nope"], read: true }, { eventIds: [feed[0].id] }, { eventIds: [feed[0].id], read: true, extra: 1 }]) {
      expectError(await portal(member.cookie, "POST", `/projects/${p.projectId}/events/read`, { json }), 400, "request/validation-failed");
    }
    expectError(await portal(member.cookie, "POST", `/projects/${p.projectId}/events/read-all`, { json: { all: true } }), 400, "request/validation-failed");
  });
});

describe("who may", () => {
  it("lets a viewer read but not mark (403 auth/insufficient-permissions)", async () => {
    expect(ids((await inbox(viewer.cookie)).events)).toEqual(newest(feed));
    expectError(await mark(viewer.cookie, [feed[0].id], false), 403, "auth/insufficient-permissions");
    expectError(await portal(viewer.cookie, "POST", `/projects/${p.projectId}/events/read-all`, { json: {} }), 403, "auth/insufficient-permissions");
  });

  it("refuses a custom member without events:read (403), reading and marking alike", async () => {
    const email = `custom-${crypto.randomUUID()}@example.test`;
    const args = ["create-user", "--email", email, "--password", "password-1", "--name", "Cus Tom", "--project", p.projectId, "--role", "custom"];
    const cookie = await sessionCookie((await admin(...args, "--permissions", "assets:read")).userId);
    for (const path of ["/events", "/events/unread-count"]) {
      expectError(await portal(cookie, "GET", `/projects/${p.projectId}${path}`), 403, "auth/insufficient-permissions");
    }
    expectError(await mark(cookie, [feed[0].id], true), 403, "auth/insufficient-permissions");
  });

  it("answers 404 project/not-found to a non-member and 401 without a session", async () => {
    for (const path of ["/events", "/events/unread-count"]) {
      expectError(await portal(outsider.cookie, "GET", `/projects/${p.projectId}${path}`), 404, "project/not-found");
      expectError(await portal(null, "GET", `/projects/${p.projectId}${path}`), 401, "auth/not-signed-in");
    }
    expectError(await mark(outsider.cookie, [feed[0].id], true), 404, "project/not-found");
  });

  it("refuses cross-site marks", async () => {
    const path = `/projects/${p.projectId}/events/read`;
    const json = { eventIds: [feed[0].id], read: false };
    expectError(await portal(member.cookie, "POST", path, { json, headers: { Origin: "https://evil.example" } }), 403, "auth/cross-site-request");
    const form = await fetch(`${baseUrl}/api/portal${path}`, {
      method: "POST",
      headers: { Cookie: member.cookie, Origin: baseUrl, "Content-Type": "text/plain" },
      body: JSON.stringify(json),
    });
    expect(form.status).toBe(403);
    const all = await portal(member.cookie, "POST", `/projects/${p.projectId}/events/read-all`, { json: {}, headers: { Origin: "https://evil.example" } });
    expectError(all, 403, "auth/cross-site-request");
  });
});
