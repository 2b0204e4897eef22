import { describe, expect, it } from "vitest";
import { type ApiClient, expectError, newKey, newProject, waitForDecision } from "./support";

const text = (name: string) => ({ name, content: { plainText: `hello ${name}`, type: "text/plain" } });

/**
 * Follows the feed from `cursor` until `count` events arrived. An event becomes visible once every
 * older transaction in the database has finished, so a just-committed event may need a moment.
 */
async function readEvents(client: ApiClient, projectId: string, cursor: string, count: number, pageSize = 10) {
  const events: any[] = [];
  const deadline = Date.now() + 10_000;
  while (events.length < count && Date.now() < deadline) {
    const { status, body } = await client.get(`/projects/${projectId}/events?limit=${pageSize}&after=${cursor}`);
    expect(status).toBe(200);
    expect(body.events.length).toBeLessThanOrEqual(pageSize);
    events.push(...body.events);
    cursor = body.cursor;
    if (!body.hasMore) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { events, cursor };
}

/**
 * Each upload here is processed in the background (queue=true): its asset.uploaded event is followed,
 * a moment later, by the decision's asset.classified event. Checks that `events` holds exactly one
 * of each per asset in `assetIds`, uploads in upload order, each decision after its upload.
 */
function expectUploadedThenClassified(events: any[], assetIds: string[], uploadsInOrder = true) {
  expect(events).toHaveLength(2 * assetIds.length);
  const uploaded = events.filter((e) => e.type === "asset.uploaded").map((e) => e.assetId);
  const classified = events.filter((e) => e.type === "asset.classified").map((e) => e.assetId);
  if (uploadsInOrder) expect(uploaded).toEqual(assetIds);
  else expect([...uploaded].sort()).toEqual([...assetIds].sort());
  expect([...classified].sort()).toEqual([...assetIds].sort());
  for (const id of assetIds) {
    const at = (type: string) => events.findIndex((e) => e.type === type && e.assetId === id);
    expect(at("asset.classified")).toBeGreaterThan(at("asset.uploaded"));
  }
}

describe("events feed", () => {
  it("starts with no events and a cursor for now, then returns newer uploads oldest first", async () => {
    const { projectId, client } = await newProject();
    const before = (await client.post(`/projects/${projectId}/assets?queue=true`, text("before"))).body;
    // Its decision (and asset.classified) must also land before the cursor is taken.
    await waitForDecision(client, before.id);

    const start = await client.get(`/projects/${projectId}/events?limit=10`);
    expect(start.status).toBe(200);
    expect(start.body).toEqual({ events: [], cursor: expect.any(String), hasMore: false });

    const created: any[] = [];
    for (const name of ["a", "b", "c"]) created.push((await client.post(`/projects/${projectId}/assets?queue=true`, text(name))).body);

    const page = await readEvents(client, projectId, start.body.cursor, 6);
    const createdIds = created.map((a) => a.id);
    expectUploadedThenClassified(page.events, createdIds);
    expect(page.events.some((e: any) => e.assetId === before.id)).toBe(false);
    const event = page.events[0];
    expect(event).toMatchObject({
      projectId,
      type: "asset.uploaded",
      severity: "low",
      assetId: created[0].id,
      asset: { id: created[0].id, externalId: null, status: "pending", flagged: null, moderationAction: null },
      facts: [
        { key: "asset-name", value: "a" },
        { key: "asset-type", value: "plaintext-document" },
        { key: "file-format", value: "text/plain" },
      ],
    });
    expect(typeof event.id).toBe("string");
    expect(Number.isInteger(event.createdAt)).toBe(true);
    const decision = page.events.find((e: any) => e.type === "asset.classified" && e.assetId === created[0].id);
    expect(decision).toMatchObject({ projectId, asset: { id: created[0].id, status: "approved" } });

    const after = await client.get(`/projects/${projectId}/events?limit=10&after=${page.cursor}`);
    expect(after.body).toEqual({ events: [], cursor: page.cursor, hasMore: false });
  });

  it("pages with hasMore and never repeats or skips an event", async () => {
    const { projectId, client } = await newProject();
    const { body: start } = await client.get(`/projects/${projectId}/events?limit=1`);
    const created = await Promise.all(
      Array.from({ length: 7 }, async (_, i) => (await client.post(`/projects/${projectId}/assets?queue=true`, text(`n${i}`))).body),
    );
    // 7 uploads and their 7 decisions, committed concurrently.
    const { events, cursor } = await readEvents(client, projectId, start.cursor, 14, 3);
    const seen = events.map((e: any) => e.id);
    expect(seen).toHaveLength(14);
    expect(new Set(seen).size).toBe(14);
    expectUploadedThenClassified(
      events,
      created.map((a) => a.id),
      false,
    );
    const after = await client.get(`/projects/${projectId}/events?limit=10&after=${cursor}`);
    expect(after.body).toEqual({ events: [], cursor, hasMore: false });
  });

  it("refuses invalid cursors and limits", async () => {
    const { projectId, client } = await newProject();
    expectError(await client.get(`/projects/${projectId}/events?limit=5&after=not-a-cursor`), 400, "events/invalid-cursor");
    expectError(await client.get(`/projects/${projectId}/events?limit=5&after=${Buffer.from("v1.x.1").toString("base64url")}`), 400, "events/invalid-cursor");
    expectError(await client.get(`/projects/${projectId}/events`), 400, "request/validation-failed");
    expectError(await client.get(`/projects/${projectId}/events?limit=0`), 400, "request/validation-failed");
    expectError(await client.get(`/projects/${projectId}/events?limit=101`), 400, "request/validation-failed");
  });

  it("needs the events:read permission and the key's own project", async () => {
    const { projectId } = await newProject();
    const other = await newProject();
    const writer = await newKey(projectId, ["assets:write"]);
    expectError(await writer.client.get(`/projects/${projectId}/events?limit=5`), 403, "auth/insufficient-permissions");
    expectError(await other.client.get(`/projects/${projectId}/events?limit=5`), 403, "auth/project-mismatch");
    expectError(await other.client.get(`/projects/00000000-0000-4000-8000-000000000000/events?limit=5`), 404, "project/not-found");
  });
});
