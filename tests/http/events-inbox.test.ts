import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { BENIGN, THREAT, START, allEvents, createText, follow } from "./events-support";
import { expectError, expectOk, newKey, newProject } from "./support";

/** The inbox side of the events feed: filters, read state, unread count. */

const text = (name: string, plainText = BENIGN) => ({ name, content: { plainText, type: "text/plain" } });

describe("feed filters", () => {
  it("filter by type, severity and read state within the cursor order", async () => {
    const p = await newProject();
    await createText(p, BENIGN, "ok.txt");
    await createText(p, THREAT, "bad.txt");
    // ok: uploaded + classified (low); bad: uploaded + classified (low) + flagged (high).
    const all = await allEvents(p, 5);
    expect(all.map((e) => e.type)).toEqual(["asset.uploaded", "asset.classified", "asset.uploaded", "asset.classified", "asset.flagged"]);

    const flagged = await allEvents(p, 1, "type=asset.flagged");
    expect(flagged.map((e) => e.id)).toEqual([all[4].id]);
    const two = await allEvents(p, 4, "type=asset.flagged,asset.uploaded");
    expect(two.map((e) => e.id)).toEqual([all[0].id, all[2].id, all[4].id]);
    expect((await allEvents(p, 1, "severity=high")).map((e) => e.id)).toEqual([all[4].id]);
    expect((await allEvents(p, 4, "severity=low")).map((e) => e.id)).toEqual(all.slice(0, 4).map((e) => e.id));
    expect(await allEvents(p, 0, "type=usage.limit-reached")).toEqual([]);

    expectOk(await p.client.post(`/events/${all[1].id}/read`));
    expect((await allEvents(p, 4, "unread=true")).map((e) => e.id)).toEqual([all[0], all[2], all[3], all[4]].map((e) => e.id));
    const read = await allEvents(p, 1, "unread=false");
    expect(read.map((e) => e.id)).toEqual([all[1].id]);
    expect(read[0].readAt).toEqual(expect.any(Number));
    // Filters combine with AND.
    expect(await allEvents(p, 0, "unread=false&severity=high")).toEqual([]);
    expect((await allEvents(p, 1, "unread=true&type=asset.classified")).map((e) => e.id)).toEqual([all[3].id]);
  });

  it("refuses unknown types and values with 400 request/validation-failed", async () => {
    const { projectId, client } = await newProject();
    const feed = (query: string) => client.get(`/projects/${projectId}/events?limit=5&after=${START}&${query}`);
    for (const query of ["type=asset.flaged", "type=", "type=asset.flagged,", "type=asset.flagged,,asset.failed", "type=ASSET.FLAGGED", "severity=medium", "severity=", "unread=yes", "unread=1"]) {
      expectError(await feed(query), 400, "request/validation-failed");
    }
    const unknown = expectError(await feed("type=asset.flagged,asset.exploded"), 400, "request/validation-failed");
    expect(unknown.message).toContain("asset.exploded");
    // A filtered request without `after` is still "now": no events, a cursor.
    expect(expectOk(await client.get(`/projects/${projectId}/events?limit=5&type=asset.flagged`))).toEqual({ events: [], cursor: expect.any(String), hasMore: false });
  });

  it("keeps rules 1-3 with filters: oldest first, no repeats, nothing skipped, under concurrent commits", async () => {
    const p = await newProject();
    const start = expectOk(await p.client.get(`/projects/${p.projectId}/events?limit=1&type=asset.flagged`)).cursor;
    const unfilteredStart = expectOk(await p.client.get(`/projects/${p.projectId}/events?limit=1`)).cursor;
    // 10 uploads, every other one a threat, decided in the background and committed concurrently.
    const created = await Promise.all(
      Array.from({ length: 10 }, async (_, i) =>
        expectOk(await p.client.post(`/projects/${p.projectId}/assets?queue=true`, text(`n${i}`, i % 2 === 0 ? THREAT : BENIGN))),
      ),
    );
    // Small pages while events are still committing: the filtered reader never sees the others.
    const filtered = await follow(p.client, p.projectId, start, 5, { query: "type=asset.flagged", limit: 2, timeoutMs: 60_000 });
    const unfiltered = await follow(p.client, p.projectId, unfilteredStart, 25, { limit: 3, timeoutMs: 60_000 });
    expect(unfiltered.events).toHaveLength(25);
    const expected = unfiltered.events.filter((e) => e.type === "asset.flagged").map((e) => e.id);
    expect(filtered.events.map((e) => e.id)).toEqual(expected);
    expect(new Set(filtered.events.map((e) => e.assetId))).toEqual(new Set(created.filter((_, i) => i % 2 === 0).map((a) => a.id)));

    // Rule 3: the returned cursor gives only newer events.
    const again = expectOk(await p.client.get(`/projects/${p.projectId}/events?limit=10&type=asset.flagged&after=${filtered.cursor}`));
    expect(again.events).toEqual([]);
    const late = await createText(p, THREAT, "late.txt");
    const next = await follow(p.client, p.projectId, filtered.cursor, 1, { query: "type=asset.flagged" });
    expect(next.events.map((e) => e.assetId)).toEqual([late.id]);
  });

  it("a filtered page that is not full moves the cursor past every event it examined", async () => {
    const p = await newProject();
    const a = await createText(p, BENIGN, "a");
    const b = await createText(p, BENIGN, "b");
    const seen = await allEvents(p, 4);
    expect(seen).toHaveLength(4);
    // Nothing matches: no events, but the cursor moved beyond the four examined.
    const page = expectOk(await p.client.get(`/projects/${p.projectId}/events?limit=10&type=asset.flagged&after=${START}`));
    expect(page).toEqual({ events: [], cursor: expect.any(String), hasMore: false });
    expect(page.cursor).not.toBe(START);
    const rest = expectOk(await p.client.get(`/projects/${p.projectId}/events?limit=100&after=${page.cursor}`));
    expect(rest.events).toEqual([]);
    // An unfiltered poll with nothing new keeps its cursor (unchanged behaviour).
    const unfiltered = expectOk(await p.client.get(`/projects/${p.projectId}/events?limit=10&after=${page.cursor}`));
    expect(unfiltered.cursor).toBe(page.cursor);
    // A full filtered page stops at its last event: the remaining matches follow.
    const first = expectOk(await p.client.get(`/projects/${p.projectId}/events?limit=1&type=asset.uploaded&after=${START}`));
    expect(first).toMatchObject({ events: [{ assetId: a.id }], hasMore: true });
    const second = expectOk(await p.client.get(`/projects/${p.projectId}/events?limit=1&type=asset.uploaded&after=${first.cursor}`));
    expect(second).toMatchObject({ events: [{ assetId: b.id }], hasMore: false });
    expect(expectOk(await p.client.get(`/projects/${p.projectId}/events?limit=1&type=asset.uploaded&after=${second.cursor}`)).events).toEqual([]);
  });

  it("reads from the beginning with after=djEuMC4w", async () => {
    const p = await newProject();
    const asset = await createText(p, BENIGN);
    const events = await allEvents(p, 2);
    expect(events.map((e) => [e.type, e.assetId])).toEqual([["asset.uploaded", asset.id], ["asset.classified", asset.id]]);
    expect(Buffer.from(START, "base64url").toString()).toBe("v1.0.0");
    for (const bad of ["djEuMC4w=", "djEuMDAuMA", "djEuMC4", Buffer.from("v1.0.0 ").toString("base64url")]) {
      expectError(await p.client.get(`/projects/${p.projectId}/events?limit=5&after=${bad}`), 400, "events/invalid-cursor");
    }
  });
});

describe("read state", () => {
  it("marks one event read and unread, bumping updatedAt", async () => {
    const p = await newProject();
    await createText(p, BENIGN);
    const [event] = await allEvents(p, 2);
    expect(event.readAt).toBeNull();
    const before = Date.now();
    const read = expectOk(await p.client.post(`/events/${event.id}/read`));
    expect(read).toEqual({ ...event, readAt: expect.any(Number), updatedAt: expect.any(Number) });
    expect(read.readAt).toBeGreaterThanOrEqual(before - 1000);
    expect(read.updatedAt).toBeGreaterThanOrEqual(event.updatedAt);
    expect(read.readAt).toBe(read.updatedAt);
    // Again: readAt becomes now again.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const again = expectOk(await p.client.post(`/events/${event.id}/read`));
    expect(again.readAt).toBeGreaterThan(read.readAt);

    const unread = expectOk(await p.client.post(`/events/${event.id}/unread`));
    expect(unread).toEqual({ ...event, readAt: null, updatedAt: expect.any(Number) });
    expect(unread.updatedAt).toBeGreaterThanOrEqual(again.updatedAt);
    // The feed shows the state too, at the same place.
    const [shown] = await allEvents(p, 2);
    expect(shown).toEqual(unread);
    // The upper-case form of an id is the same event.
    expect(expectOk(await p.client.post(`/events/${event.id.toUpperCase()}/read`)).id).toBe(event.id);
  });

  it("answers 404 for unknown and malformed ids, 403 for another project's event, and needs events:write", async () => {
    const p = await newProject();
    const other = await newProject();
    await createText(other, BENIGN);
    const [foreign] = await allEvents(other, 1);
    expectError(await p.client.post(`/events/${randomUUID()}/read`), 404, "event/not-found");
    expectError(await p.client.post(`/events/${randomUUID()}/unread`), 404, "event/not-found");
    expectError(await p.client.post(`/events/not-a-uuid/read`), 404, "event/not-found");
    expectError(await p.client.post(`/events/${foreign.id}/read`), 403, "auth/project-mismatch");
    expectError(await p.client.post(`/events/${foreign.id}/unread`), 403, "auth/project-mismatch");
    expect((await allEvents(other, 1))[0].readAt).toBeNull();

    const reader = await newKey(other.projectId, ["events:read"]);
    expectError(await reader.client.post(`/events/${foreign.id}/read`), 403, "auth/insufficient-permissions");
    expectError(await reader.client.post(`/projects/${other.projectId}/events/read`, { eventIds: [foreign.id], read: true }), 403, "auth/insufficient-permissions");
    const writer = await newKey(other.projectId, ["events:write"]);
    expect(expectOk(await writer.client.post(`/events/${foreign.id}/read`)).readAt).toEqual(expect.any(Number));
    expectError(await writer.client.get(`/projects/${other.projectId}/events/unread-count`), 403, "auth/insufficient-permissions");
    expectError(await writer.client.get(`/events/${foreign.id}/read`), 405, "request/method-not-allowed");
  });

  it("marks several events at once and counts unread events", async () => {
    const p = await newProject();
    const other = await newProject();
    await createText(p, BENIGN, "ok");
    await createText(p, THREAT, "bad");
    await createText(other, BENIGN);
    const events = await allEvents(p, 5);
    const [foreign] = await allEvents(other, 1);
    expect(expectOk(await p.client.get(`/projects/${p.projectId}/events/unread-count`))).toEqual({ unread: 5, unreadHigh: 1 });

    const flagged = events.find((e) => e.type === "asset.flagged");
    const ids = [events[0].id, flagged.id, flagged.id, foreign.id, randomUUID()];
    expect(expectOk(await p.client.post(`/projects/${p.projectId}/events/read`, { eventIds: ids, read: true }))).toEqual({ updated: 2 });
    expect(expectOk(await p.client.get(`/projects/${p.projectId}/events/unread-count`))).toEqual({ unread: 3, unreadHigh: 0 });
    // Already read: nothing changes, readAt stays.
    const readAt = (await allEvents(p, 5)).find((e) => e.id === flagged.id).readAt;
    expect(expectOk(await p.client.post(`/projects/${p.projectId}/events/read`, { eventIds: [flagged.id], read: true }))).toEqual({ updated: 0 });
    expect((await allEvents(p, 5)).find((e) => e.id === flagged.id).readAt).toBe(readAt);
    // Another project's event was not touched.
    expect((await allEvents(other, 1))[0].readAt).toBeNull();
    expect(expectOk(await other.client.get(`/projects/${other.projectId}/events/unread-count`))).toEqual({ unread: 2, unreadHigh: 0 });

    expect(expectOk(await p.client.post(`/projects/${p.projectId}/events/read`, { eventIds: events.map((e) => e.id), read: false }))).toEqual({ updated: 2 });
    expect(expectOk(await p.client.get(`/projects/${p.projectId}/events/unread-count`))).toEqual({ unread: 5, unreadHigh: 1 });
    expect(expectOk(await p.client.post(`/projects/${p.projectId}/events/read`, { eventIds: events.map((e) => e.id), read: true }))).toEqual({ updated: 5 });
    expect(expectOk(await p.client.get(`/projects/${p.projectId}/events/unread-count`))).toEqual({ unread: 0, unreadHigh: 0 });
  });

  it("validates the bulk body and checks project access", async () => {
    const p = await newProject();
    const other = await newProject();
    const bulk = (body: unknown, projectId = p.projectId) => p.client.post(`/projects/${projectId}/events/read`, body);
    const id = randomUUID();
    for (const body of [
      {},
      { eventIds: [], read: true },
      { eventIds: Array.from({ length: 101 }, () => randomUUID()), read: true },
      { eventIds: ["not-a-uuid"], read: true },
      { eventIds: [id] },
      { eventIds: [id], read: "true" },
      { eventIds: [id], read: true, extra: 1 },
    ]) {
      expectError(await bulk(body), 400, "request/validation-failed");
    }
    expect(expectOk(await bulk({ eventIds: Array.from({ length: 100 }, () => randomUUID()), read: true }))).toEqual({ updated: 0 });
    expectError(await bulk({ eventIds: [id], read: true }, other.projectId), 403, "auth/project-mismatch");
    expectError(await bulk({ eventIds: [id], read: true }, randomUUID()), 404, "project/not-found");
    expectError(await p.client.get(`/projects/${other.projectId}/events/unread-count`), 403, "auth/project-mismatch");
    expectError(await p.client.get(`/projects/${p.projectId}/events/unread-count?x=1`), 400, "request/validation-failed");
  });
});
