import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { expectError, newKey, newProject } from "./support";
import { expectReplayOf } from "./platform-support";

/** Idempotency-Key, as every idempotent endpoint handles it (shown on Create Folder and Create Asset). */

describe("idempotency", () => {
  it("replays the first response with Idempotent-Replayed: true and creates one folder", async () => {
    const { client, projectId } = await newProject();
    const key = randomUUID();
    const first = await client.post(`/projects/${projectId}/folders`, { name: "once" }, { "Idempotency-Key": key });
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();

    const replay = await client.post(`/projects/${projectId}/folders`, { name: "once" }, { "Idempotency-Key": key });
    expectReplayOf(replay, first);
    expect(replay.body).toEqual(first.body);

    const list = await client.get(`/projects/${projectId}/folders`);
    expect(list.body.folders).toEqual([first.body]);
  });

  it("refuses the same key with a different request with 422 idempotency/key-reused", async () => {
    const { client, projectId } = await newProject();
    const key = randomUUID();
    expect((await client.post(`/projects/${projectId}/folders`, { name: "a" }, { "Idempotency-Key": key })).status).toBe(200);
    expectError(await client.post(`/projects/${projectId}/folders`, { name: "b" }, { "Idempotency-Key": key }), 422, "idempotency/key-reused");
    // A different query string is a different request too.
    const asset = { name: "n.txt", content: { plainText: "hello", type: "text/plain" } };
    expect((await client.post(`/projects/${projectId}/assets?queue=true`, asset, { "Idempotency-Key": key })).status).toBe(200);
    expectError(await client.post(`/projects/${projectId}/assets?queue=false`, asset, { "Idempotency-Key": key }), 422, "idempotency/key-reused");
    const list = await client.get(`/projects/${projectId}/folders`);
    expect(list.body.folders.map((f: { name: string }) => f.name)).toEqual(["a"]);
  });

  it("scopes keys to the API key and the operation", async () => {
    const { client, projectId } = await newProject();
    const second = await newKey(projectId, ["assets:read", "assets:write"]);
    const key = randomUUID();
    const a = await client.post(`/projects/${projectId}/folders`, { name: "a" }, { "Idempotency-Key": key });
    const b = await second.client.post(`/projects/${projectId}/folders`, { name: "b" }, { "Idempotency-Key": key });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
    // The same key on another idempotent operation is a different key.
    const asset = await client.post(
      `/projects/${projectId}/assets?queue=true`,
      { name: "n.txt", content: { plainText: "hello", type: "text/plain" } },
      { "Idempotency-Key": key },
    );
    expect(asset.status).toBe(200);
    expect(asset.headers.get("idempotent-replayed")).toBeNull();
  });

  it("stores error responses too, replaying them with the first request's traceId", async () => {
    const { client, projectId } = await newProject();
    const existing = await client.post(`/projects/${projectId}/folders`, { name: "taken" });
    const key = randomUUID();
    const first = await client.post(`/projects/${projectId}/folders`, { name: "taken" }, { "Idempotency-Key": key });
    const original = expectError(first, 409, "folder/duplicate-name");
    // Even after the conflict is gone, the retry gets the stored answer.
    expect((await client.delete(`/folders/${existing.body.id}`)).status).toBe(200);
    const replay = await client.post(`/projects/${projectId}/folders`, { name: "taken" }, { "Idempotency-Key": key });
    expectReplayOf(replay, first);
    expect(replay.body).toEqual(original);
    expect(replay.body.traceId).toBe(first.headers.get("x-request-id"));
  });

  it("stores nothing for requests rejected before they run", async () => {
    const { client, projectId } = await newProject();
    const key = randomUUID();
    expectError(await client.post(`/projects/${projectId}/folders`, { name: "" }, { "Idempotency-Key": key }), 400, "request/validation-failed");
    const reader = await newKey(projectId, ["assets:read"]);
    expectError(await reader.client.post(`/projects/${projectId}/folders`, { name: "x" }, { "Idempotency-Key": key }), 403, "auth/insufficient-permissions");
    const res = await client.post(`/projects/${projectId}/folders`, { name: "valid" }, { "Idempotency-Key": key });
    expect(res.status).toBe(200);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
  });

  it("rejects an invalid Idempotency-Key with 400 idempotency/invalid-key and creates nothing", async () => {
    const { client, projectId } = await newProject();
    for (const key of ["k".repeat(300), "has space", ""]) {
      expectError(await client.post(`/projects/${projectId}/folders`, { name: "x" }, { "Idempotency-Key": key }), 400, "idempotency/invalid-key");
    }
    expect((await client.post(`/projects/${projectId}/folders`, { name: "x" }, { "Idempotency-Key": "k".repeat(255) })).status).toBe(200);
    // Endpoints that are not idempotent ignore the header.
    const list = await client.get(`/projects/${projectId}/folders`, { "Idempotency-Key": "k".repeat(300) });
    expect(list.status).toBe(200);
    expect(list.body.folders).toHaveLength(1);
  });

  it("lets exactly one of many concurrent duplicates run; the others wait or get the replay", async () => {
    const { client, projectId } = await newProject();
    const key = randomUUID();
    const body = { name: "big.txt", content: { plainText: "lorem ipsum dolor sit amet\n".repeat(80_000), type: "text/plain" } };
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => client.post(`/projects/${projectId}/assets?queue=true`, body, { "Idempotency-Key": key })),
    );
    const fresh = responses.filter((r) => r.headers.get("idempotent-replayed") === null);
    expect(fresh.filter((r) => r.status === 200)).toHaveLength(1);
    const original = fresh.find((r) => r.status === 200)!;
    for (const res of responses) {
      if (res === original) continue;
      if (res.status === 409) expectError(res, 409, "idempotency/request-in-progress");
      else expectReplayOf(res, original);
    }

    const page = await client.get(`/projects/${projectId}/assets/page`);
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(1);
    expect(page.body.items[0].id).toBe(original.body.id);
    // Once finished, a retry is a replay of that one asset.
    const retry = await client.post(`/projects/${projectId}/assets?queue=true`, body, { "Idempotency-Key": key });
    expectReplayOf(retry, original);
  });
});
