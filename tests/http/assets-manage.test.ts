import { beforeAll, describe, expect, it } from "vitest";
import { ApiClient, admin, expectError, expectOk, newKey, newProject, newFolder, type TestProject } from "./support";
import { KEEP, NO_SUCH_ID, storedFileExists, createText, createPng, insertChild } from "./assets-manage-support";

/**
 * Reading, changing, moving and deleting assets; safety holds through the admin CLI.
 * Helpers and their conventions (queue=false uploads, KEEP): assets-manage-support.ts.
 */

let p: TestProject;
let other: TestProject;

beforeAll(async () => {
  [p, other] = await Promise.all([newProject(), newProject()]);
});

describe("GET /assets/:id", () => {
  it("returns the asset; unknown and malformed ids → 404; another project's asset → 403", async () => {
    const asset = await createText(p, "get-me.txt");
    const fetched = expectOk(await p.client.get(`/assets/${asset.id}`));
    expect(fetched).toEqual(asset);
    expect(expectOk(await p.client.get(`/assets/${asset.id.toUpperCase()}`)).id).toBe(asset.id);

    expectError(await p.client.get(`/assets/${NO_SUCH_ID}`), 404, "asset/not-found");
    expectError(await p.client.get(`/assets/not-a-uuid`), 404, "asset/not-found");
    expectError(await other.client.get(`/assets/${asset.id}`), 403, "auth/project-mismatch");
    expectError(await new ApiClient(null).get(`/assets/${asset.id}`), 401, "auth/missing-token");
    expectError(await new ApiClient("sieve_nope").get(`/assets/${asset.id}`), 401, "auth/invalid-api-key");
    const writeOnly = await newKey(p.projectId, ["assets:write"]);
    expectError(await writeOnly.client.get(`/assets/${asset.id}`), 403, "auth/insufficient-permissions");
  });
});

describe("methods and paths", () => {
  it("a wrong method → 405 request/method-not-allowed with Allow; an unknown path → 404 request/route-not-found", async () => {
    const asset = await createText(p, "methods.txt");
    const cases: [string, string, string][] = [
      ["PUT", `/assets/${asset.id}`, "GET, PATCH, DELETE, HEAD, OPTIONS"],
      ["POST", `/assets/${asset.id}`, "GET, PATCH, DELETE, HEAD, OPTIONS"],
      ["GET", `/assets/${asset.id}/move`, "POST, OPTIONS"],
      ["GET", `/assets/${asset.id}/part`, "POST, OPTIONS"],
      ["POST", `/assets/${asset.id}/content`, "DELETE, OPTIONS"],
      ["DELETE", `/projects/${p.projectId}/assets/page`, "GET, HEAD, OPTIONS"],
      ["GET", `/projects/${p.projectId}/assets`, "POST, OPTIONS"],
    ];
    for (const [method, url, allow] of cases) {
      const res = await p.client.request(method, url);
      expectError(res, 405, "request/method-not-allowed");
      expect(res.headers.get("allow"), `${method} ${url}`).toBe(allow);
    }
    expectError(await p.client.get(`/assets/${asset.id}/nothing-here`), 404, "request/route-not-found");
  });
});

describe("GET /assets/:id/children", () => {
  it("an asset without children has an empty page", async () => {
    const asset = await createText(p, "childless.txt");
    expect(expectOk(await p.client.get(`/assets/${asset.id}/children`))).toEqual({ items: [], total: 0, hasMore: false });
  });

  it("lists extracted children oldest first, paginated; they stay out of the top-level list", async () => {
    const parent = await createText(p, "parent.txt");
    const first = await insertChild(parent, "child-1");
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await insertChild(parent, "child-2");
    const all = expectOk(await p.client.get(`/assets/${parent.id}/children`));
    expect(all).toMatchObject({ total: 2, hasMore: false });
    expect(all.items.map((a: { id: string }) => a.id)).toEqual([first.id, second.id]);
    expect(all.items[0]).toMatchObject({ parentId: parent.id, type: "plaintext-document", name: "child-1" });

    const page0 = expectOk(await p.client.get(`/assets/${parent.id}/children?pageSize=1`));
    expect(page0).toMatchObject({ total: 2, hasMore: true });
    expect(page0.items.map((a: { id: string }) => a.id)).toEqual([first.id]);
    const page1 = expectOk(await p.client.get(`/assets/${parent.id}/children?pageSize=1&pageIndex=1`));
    expect(page1).toMatchObject({ total: 2, hasMore: false });
    expect(page1.items.map((a: { id: string }) => a.id)).toEqual([second.id]);

    const topLevel = expectOk(await p.client.get(`/projects/${p.projectId}/assets/page?pageSize=100&filter=${encodeURIComponent("name==child-*")}`));
    expect(topLevel.total).toBe(0);
    const byParent = expectOk(await p.client.get(`/projects/${p.projectId}/assets/page?filter=${encodeURIComponent(`parentId==${parent.id}`)}`));
    expect(byParent.items.map((a: { id: string }) => a.id).sort()).toEqual([first.id, second.id].sort());

    for (const bad of ["pageSize=0", "pageSize=101", "pageIndex=-1", "pageSize=two", "sort=name"]) {
      expectError(await p.client.get(`/assets/${parent.id}/children?${bad}`), 400, "request/validation-failed");
    }
    expectError(await p.client.get(`/assets/${NO_SUCH_ID}/children`), 404, "asset/not-found");
    expectError(await p.client.get(`/assets/nope/children`), 404, "asset/not-found");
    expectError(await other.client.get(`/assets/${parent.id}/children`), 403, "auth/project-mismatch");
  });
});

describe("PATCH /assets/:id", () => {
  it("changes each field on its own and leaves the others alone", async () => {
    const asset = await createText(p, "patch-me.txt", { description: "before", visibility: "public", externalId: "patch-1" });
    const changes: Record<string, unknown>[] = [
      { name: "renamed.txt" },
      { description: "after" },
      { visibility: "private" },
      { metadata: [{ id: "camera", value: "x100" }, { id: "iso", value: 200 }] },
      { tags: ["summer", "beach", "summer"] },
      { externalId: "patch-1b" },
      { externalUrl: "https://example.com/patched" },
    ];
    let current = asset;
    for (const change of changes) {
      const res = await p.client.patch(`/assets/${asset.id}`, change);
      const updated = expectOk(res);
      const expected = "tags" in change ? { tags: ["summer", "beach"] } : change;
      expect(updated).toEqual({ ...current, ...expected, updatedAt: updated.updatedAt });
      expect(updated.updatedAt).toBeGreaterThanOrEqual(current.updatedAt);
      current = updated;
    }
    expect(expectOk(await p.client.get(`/assets/${asset.id}`))).toEqual(current);
    // Unchanged by any patch: content facts.
    expect(current).toMatchObject({ checksums: asset.checksums, sizeInBytes: asset.sizeInBytes, storageId: asset.storageId, createdAt: asset.createdAt });
  });

  it("null clears nullable fields; tags: null leaves an empty list", async () => {
    const asset = await createText(p, "clear-me.txt", {
      description: "d",
      visibility: "private",
      externalId: "clear-1",
      externalUrl: "https://example.com/c",
      metadata: [{ id: "k", value: "v" }],
    });
    expectOk(await p.client.patch(`/assets/${asset.id}`, { tags: ["t"] }));
    const cleared = expectOk(
      await p.client.patch(`/assets/${asset.id}`, { description: null, visibility: null, externalId: null, externalUrl: null, metadata: null, tags: null }),
    );
    expect(cleared).toMatchObject({ description: null, visibility: null, externalId: null, externalUrl: null, metadata: null, tags: [], name: "clear-me.txt" });
    // The cleared externalId is free again.
    await createText(p, "reuse.txt", { externalId: "clear-1" });
  });

  it("invalid bodies → 400 request/validation-failed", async () => {
    const asset = await createText(p, "strict.txt");
    const bad: unknown[] = [
      {},
      { colour: "red" },
      { name: null },
      { name: "" },
      { status: "approved" },
      { folderId: null },
      { visibility: "secret" },
      { tags: [""] },
      { tags: "summer" },
      { metadata: [{ id: "k" }] },
      { externalId: "a/b" },
      { externalUrl: "nope" },
      [],
    ];
    for (const body of bad) {
      expectError(await p.client.patch(`/assets/${asset.id}`, body), 400, "request/validation-failed");
    }
    expectError(await p.client.request("PATCH", `/assets/${asset.id}`), 400, "request/validation-failed");
    expectError(
      await p.client.request("PATCH", `/assets/${asset.id}`, { body: "{name:", headers: { "Content-Type": "application/json" } }),
      400,
      "request/malformed-json",
    );
    expect(expectOk(await p.client.get(`/assets/${asset.id}`))).toMatchObject({ name: "strict.txt", updatedAt: asset.updatedAt });
  });

  it("a body over SIEVE_MAX_JSON_BODY_BYTES (64 MiB) → 413 request/body-too-large", async () => {
    const asset = await createText(p, "huge-patch.txt");
    const res = await p.client.sendOversized("PATCH", `/assets/${asset.id}`, Buffer.alloc(64 * 1024 * 1024 + 1, 0x20), { "Content-Type": "application/json" });
    expectError(res, 413, "request/body-too-large");
  });

  it("another asset's externalId → 409 asset/duplicate-external-id; missing and foreign assets", async () => {
    await createText(p, "holder.txt", { externalId: "taken-1" });
    const asset = await createText(p, "wants.txt", { externalId: "mine-1" });
    expectError(await p.client.patch(`/assets/${asset.id}`, { externalId: "taken-1" }), 409, "asset/duplicate-external-id");
    expect(expectOk(await p.client.patch(`/assets/${asset.id}`, { externalId: "mine-1" })).externalId).toBe("mine-1");
    expectError(await p.client.patch(`/assets/${NO_SUCH_ID}`, { name: "x" }), 404, "asset/not-found");
    expectError(await p.client.patch(`/assets/not-a-uuid`, { name: "x" }), 404, "asset/not-found");
    expectError(await other.client.patch(`/assets/${asset.id}`, { name: "x" }), 403, "auth/project-mismatch");
    const readOnly = await newKey(p.projectId, ["assets:read"]);
    expectError(await readOnly.client.patch(`/assets/${asset.id}`, { name: "x" }), 403, "auth/insufficient-permissions");
  });
});

describe("POST /assets/:id/move", () => {
  it("moves into a folder and back to the root; unknown and foreign folders → 404", async () => {
    const folderId = await newFolder(p, "move-target");
    const asset = await createText(p, "mover.txt");
    const moved = expectOk(await p.client.post(`/assets/${asset.id}/move`, { folderId }));
    expect(moved).toMatchObject({ id: asset.id, folderId, name: "mover.txt" });
    expect(expectOk(await p.client.get(`/assets/${asset.id}`)).folderId).toBe(folderId);
    // A folder with an asset in it cannot be deleted.
    expectError(await p.client.delete(`/folders/${folderId}`), 409, "folder/not-empty");

    const root = expectOk(await p.client.post(`/assets/${asset.id}/move`, { folderId: null }));
    expect(root.folderId).toBeNull();
    expect(expectOk(await p.client.delete(`/folders/${folderId}`))).toEqual({});

    expectError(await p.client.post(`/assets/${asset.id}/move`, { folderId: NO_SUCH_ID }), 404, "folder/not-found");
    const foreignFolder = await newFolder(other, "theirs");
    expectError(await p.client.post(`/assets/${asset.id}/move`, { folderId: foreignFolder }), 404, "folder/not-found");
    expect(expectOk(await p.client.get(`/assets/${asset.id}`)).folderId).toBeNull();
  });

  it("validation, missing and foreign assets", async () => {
    const asset = await createText(p, "move-strict.txt");
    for (const body of [{}, { folderId: "nope" }, { folderId: null, extra: 1 }, { parentId: null }]) {
      expectError(await p.client.post(`/assets/${asset.id}/move`, body), 400, "request/validation-failed");
    }
    expectError(await p.client.post(`/assets/${NO_SUCH_ID}/move`, { folderId: null }), 404, "asset/not-found");
    expectError(await other.client.post(`/assets/${asset.id}/move`, { folderId: null }), 403, "auth/project-mismatch");
    expectError(await new ApiClient(null).post(`/assets/${asset.id}/move`, { folderId: null }), 401, "auth/missing-token");
  });
});

describe("DELETE /assets/:id/content", () => {
  it("removes the stored bytes (also of children) and keeps the records", async () => {
    const asset = await createPng(p, "content.png", { description: "keep me", ...KEEP });
    expect(asset).toMatchObject({ status: "approved", storageDeletedAt: null });
    const child = await insertChild(asset, "derived", true);
    expect(await storedFileExists(asset.storageId)).toBe(true);

    const res = expectOk(await p.client.delete(`/assets/${asset.id}/content`));
    expect(res.storageId).toBeNull();
    expect(typeof res.storageDeletedAt).toBe("number");
    expect(res.storageDeletedAt).toBeGreaterThanOrEqual(asset.createdAt);
    // The preview goes with the content.
    expect(res.previewImage).toBeNull();
    const { storageId: _s, storageDeletedAt: _d, updatedAt: _u, previewImage: _p, ...kept } = asset;
    expect(res).toMatchObject(kept);
    expect(await storedFileExists(asset.storageId)).toBe(false);
    expect(expectOk(await p.client.get(`/assets/${asset.id}`))).toEqual(res);

    const childAfter = expectOk(await p.client.get(`/assets/${child.id}`));
    expect(childAfter).toMatchObject({ storageId: null, name: "derived" });
    expect(childAfter.storageDeletedAt).toBe(res.storageDeletedAt);

    // Repeating it is harmless and keeps the first removal time.
    const again = expectOk(await p.client.delete(`/assets/${asset.id}/content`));
    expect(again).toMatchObject({ storageId: null, storageDeletedAt: res.storageDeletedAt });
  });

  it("an asset still uploading → 409 asset/invalid-state; missing and foreign assets", async () => {
    const uploading = expectOk(
      await p.client.post(`/projects/${p.projectId}/assets`, { name: "half.txt", part: { plainText: "half", type: "text/plain" } }),
    );
    expect(uploading.status).toBe("uploading");
    expectError(await p.client.delete(`/assets/${uploading.id}/content`), 409, "asset/invalid-state");
    expectError(await p.client.delete(`/assets/${NO_SUCH_ID}/content`), 404, "asset/not-found");
    expectError(await p.client.delete(`/assets/bad/content`), 404, "asset/not-found");
    const asset = await createText(p, "foreign-content.txt");
    expectError(await other.client.delete(`/assets/${asset.id}/content`), 403, "auth/project-mismatch");
    const readOnly = await newKey(p.projectId, ["assets:read"]);
    expectError(await readOnly.client.delete(`/assets/${asset.id}/content`), 403, "auth/insufficient-permissions");
  });
});

describe("DELETE /assets/:id", () => {
  it("deletes the asset, its children and its bytes; afterwards it is 404", async () => {
    const asset = await createText(p, "doomed.txt", KEEP);
    const child = await insertChild(asset, "doomed-child");
    expect(await storedFileExists(asset.storageId)).toBe(true);
    expect(expectOk(await p.client.delete(`/assets/${asset.id}`))).toEqual({});
    expectError(await p.client.get(`/assets/${asset.id}`), 404, "asset/not-found");
    expectError(await p.client.get(`/assets/${child.id}`), 404, "asset/not-found");
    expectError(await p.client.delete(`/assets/${asset.id}`), 404, "asset/not-found");
    expect(await storedFileExists(asset.storageId)).toBe(false);
  });

  it("deleting an unfinished upload abandons it", async () => {
    const uploading = expectOk(
      await p.client.post(`/projects/${p.projectId}/assets`, { name: "abandon.txt", part: { plainText: "half", type: "text/plain" } }),
    );
    expect(expectOk(await p.client.delete(`/assets/${uploading.id}`))).toEqual({});
    expectError(
      await p.client.post(`/assets/${uploading.id}/part`, { part: { plainText: "rest", type: "text/plain", partNumber: 2, isFinal: true } }),
      404,
      "asset/not-found",
    );
  });

  it("missing and foreign assets", async () => {
    const asset = await createText(p, "kept.txt");
    expectError(await other.client.delete(`/assets/${asset.id}`), 403, "auth/project-mismatch");
    expectError(await p.client.delete(`/assets/${NO_SUCH_ID}`), 404, "asset/not-found");
    expectError(await new ApiClient(null).delete(`/assets/${asset.id}`), 401, "auth/missing-token");
    expect(expectOk(await p.client.get(`/assets/${asset.id}`)).name).toBe("kept.txt");
  });
});

describe("safety holds", () => {
  it("a held asset can be read but not changed, moved or deleted (423) until the hold is released", async () => {
    const folderId = await newFolder(p, "hold-folder");
    const asset = await createText(p, "held.txt", KEEP);
    expect(asset).toMatchObject({ status: "approved", storageDeletedAt: null });
    expect(await storedFileExists(asset.storageId)).toBe(true);
    const held = await admin("hold-asset", "--asset", asset.id, "--reason", "suspected CSAM match");
    expect(held).toMatchObject({ assetId: asset.id, safetyHold: { reason: "suspected CSAM match", source: "admin-cli" } });

    const fetched = expectOk(await p.client.get(`/assets/${asset.id}`));
    expect(fetched.safetyHold).toMatchObject({ reason: "suspected CSAM match", source: "admin-cli" });
    expect(typeof fetched.safetyHold.heldAt).toBe("number");
    const listed = expectOk(await p.client.get(`/projects/${p.projectId}/assets/page?filter=${encodeURIComponent("name==held.txt")}`));
    expect(listed.items[0].safetyHold).not.toBeNull();

    expectError(await p.client.patch(`/assets/${asset.id}`, { name: "renamed" }), 423, "asset/safety-held");
    expectError(await p.client.post(`/assets/${asset.id}/move`, { folderId }), 423, "asset/safety-held");
    expectError(await p.client.delete(`/assets/${asset.id}/content`), 423, "asset/safety-held");
    expectError(await p.client.delete(`/assets/${asset.id}`), 423, "asset/safety-held");
    const still = expectOk(await p.client.get(`/assets/${asset.id}`));
    expect(still).toMatchObject({ name: "held.txt", folderId: null, storageId: asset.storageId, storageDeletedAt: null });
    expect(await storedFileExists(asset.storageId)).toBe(true);

    expect(await admin("release-hold", "--asset", asset.id)).toEqual({ assetId: asset.id, safetyHold: null });
    expect(expectOk(await p.client.get(`/assets/${asset.id}`)).safetyHold).toBeNull();
    expect(expectOk(await p.client.patch(`/assets/${asset.id}`, { name: "renamed" })).name).toBe("renamed");
    expect(expectOk(await p.client.post(`/assets/${asset.id}/move`, { folderId })).folderId).toBe(folderId);
    expect(expectOk(await p.client.delete(`/assets/${asset.id}/content`)).storageId).toBeNull();
    expect(expectOk(await p.client.delete(`/assets/${asset.id}`))).toEqual({});
  }, 60_000);
});
