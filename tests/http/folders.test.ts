import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { ApiClient, expectError, newKey, newProject, type TestProject } from "./support";
import { expectFolder, create, list, type Folder } from "./folders-support";

/**
 * The folder endpoints and the spec's four rules: unique sibling names, only empty folders can be
 * deleted, no moves into the folder's own subtree, and parentId null meaning the project root.
 * Here: listing, creating, reading and renaming folders, and authentication on every endpoint;
 * deleting, moving and concurrent changes: folders-move-delete.test.ts.
 */

let p: TestProject;
let other: TestProject;
let otherFolder: Folder;

beforeAll(async () => {
  [p, other] = await Promise.all([newProject(), newProject()]);
  otherFolder = await create(other.client, other.projectId, "theirs");
});

describe("list folders", () => {
  it("returns {folders: []} for a project without folders, then all folders oldest first", async () => {
    const { client, projectId } = await newProject();
    expect(await list(client, projectId)).toEqual([]);
    const a = await create(client, projectId, "a");
    const b = await create(client, projectId, "b", a.id);
    const c = await create(client, projectId, "c");
    const folders = await list(client, projectId);
    expect(folders).toEqual([a, b, c]);
    for (const folder of folders) expectFolder(folder, { projectId, parentId: folder.parentId, name: folder.name });
  });

  it("returns 404 project/not-found and 403 auth/project-mismatch for other projects", async () => {
    expectError(await p.client.get(`/projects/${randomUUID()}/folders`), 404, "project/not-found");
    expectError(await p.client.get("/projects/nope/folders"), 404, "project/not-found");
    expectError(await p.client.get(`/projects/${other.projectId}/folders`), 403, "auth/project-mismatch");
  });

  it("never lists another project's folders", async () => {
    const folders = await list(p.client, p.projectId);
    expect(folders.map((f) => f.id)).not.toContain(otherFolder.id);
  });
});

describe("create folder", () => {
  it("creates folders at the root (parentId omitted or null) and nested", async () => {
    const root = await create(p.client, p.projectId, "create-root");
    const explicitRoot = await create(p.client, p.projectId, "create-root-2", null);
    const child = await create(p.client, p.projectId, "child", root.id);
    const grandchild = await create(p.client, p.projectId, "grandchild", child.id);
    expect(explicitRoot.parentId).toBeNull();
    expect(grandchild.parentId).toBe(child.id);
    const got = await p.client.get(`/folders/${grandchild.id}`);
    expect(got.body).toEqual(grandchild);
  });

  it("accepts names of 1 to 100 characters with any characters except slashes", async () => {
    await create(p.client, p.projectId, "x");
    await create(p.client, p.projectId, "n".repeat(100));
    await create(p.client, p.projectId, "Ünïcödé name – 📁 (v2).final");
  });

  it("rejects invalid names with 400 request/validation-failed naming the field", async () => {
    const url = `/projects/${p.projectId}/folders`;
    for (const body of [
      { name: "" },
      { name: "n".repeat(101) },
      { name: "a/b" },
      { name: "/" },
      { name: "a\\b" },
      { name: "   " },
      { name: 42 },
      { name: null },
      {},
    ]) {
      const error = expectError(await p.client.post(url, body), 400, "request/validation-failed");
      expect(error.message).toContain("body.name");
    }
    const names = (await list(p.client, p.projectId)).map((f) => f.name);
    expect(names).not.toContain("a/b");
    expect(names).not.toContain("n".repeat(101));
  });

  it("rejects a malformed parentId and unknown fields with 400", async () => {
    const url = `/projects/${p.projectId}/folders`;
    expect(expectError(await p.client.post(url, { name: "x1", parentId: "nope" }), 400, "request/validation-failed").message).toContain("parentId");
    expect(expectError(await p.client.post(url, { name: "x1", color: "red" }), 400, "request/validation-failed").message).toContain("color");
  });

  it("returns 409 folder/duplicate-name for a sibling with the same name, and allows it under another parent", async () => {
    const { client, projectId } = await newProject();
    const docs = await create(client, projectId, "docs");
    const elsewhere = await create(client, projectId, "elsewhere");
    expectError(await client.post(`/projects/${projectId}/folders`, { name: "docs" }), 409, "folder/duplicate-name");
    expectError(await client.post(`/projects/${projectId}/folders`, { name: "docs", parentId: null }), 409, "folder/duplicate-name");
    const nested = await create(client, projectId, "docs", docs.id);
    await create(client, projectId, "docs", elsewhere.id);
    expectError(await client.post(`/projects/${projectId}/folders`, { name: "docs", parentId: docs.id }), 409, "folder/duplicate-name");
    await create(client, projectId, "docs", nested.id);
    // Names are compared exactly.
    await create(client, projectId, "Docs");
    // The same name in another project is fine.
    await create(p.client, p.projectId, "docs");
    expect((await list(client, projectId)).filter((f) => f.name === "docs")).toHaveLength(4);
  });

  it("returns 404 folder/not-found for a parent that does not exist or belongs to another project", async () => {
    const url = `/projects/${p.projectId}/folders`;
    expectError(await p.client.post(url, { name: "orphan", parentId: randomUUID() }), 404, "folder/not-found");
    expectError(await p.client.post(url, { name: "orphan", parentId: otherFolder.id }), 404, "folder/not-found");
    expect((await list(p.client, p.projectId)).map((f) => f.name)).not.toContain("orphan");
    expect((await list(other.client, other.projectId)).map((f) => f.id)).toEqual([otherFolder.id]);
  });

  it("returns 404 project/not-found and 403 auth/project-mismatch for other projects", async () => {
    expectError(await p.client.post(`/projects/${randomUUID()}/folders`, { name: "x" }), 404, "project/not-found");
    expectError(await p.client.post(`/projects/${other.projectId}/folders`, { name: "x" }), 403, "auth/project-mismatch");
  });

  it("lets exactly one of 20 concurrent creates with the same name succeed, at the root and in a folder", async () => {
    // 20 is more than the server's database pool (10): the lock holder must not need a second connection.
    const { client, projectId } = await newProject();
    const parent = await create(client, projectId, "parent");
    for (const parentId of [null, parent.id]) {
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => client.post(`/projects/${projectId}/folders`, { name: "race", parentId })),
      );
      const created = responses.filter((r) => r.status === 200);
      expect(created).toHaveLength(1);
      for (const res of responses) if (res.status !== 200) expectError(res, 409, "folder/duplicate-name");
      const racers = (await list(client, projectId)).filter((f) => f.name === "race" && f.parentId === parentId);
      expect(racers).toEqual([created[0]?.body]);
    }
  });
});

describe("get folder", () => {
  it("returns the folder", async () => {
    const folder = await create(p.client, p.projectId, "get-me");
    const res = await p.client.get(`/folders/${folder.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(folder);
    // Any letter case of the id names the same folder.
    expect((await p.client.get(`/folders/${folder.id.toUpperCase()}`)).body).toEqual(folder);
  });

  it("returns 404 folder/not-found for unknown or malformed ids and 403 for another project's folder", async () => {
    expectError(await p.client.get(`/folders/${randomUUID()}`), 404, "folder/not-found");
    expectError(await p.client.get("/folders/not-a-uuid"), 404, "folder/not-found");
    expectError(await p.client.get(`/folders/${otherFolder.id}`), 403, "auth/project-mismatch");
  });
});

describe("rename folder", () => {
  it("renames, keeping id, parent and createdAt and advancing updatedAt", async () => {
    const parent = await create(p.client, p.projectId, "rename-parent");
    const folder = await create(p.client, p.projectId, "before", parent.id);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const res = await p.client.patch(`/folders/${folder.id}`, { name: "after" });
    expect(res.status).toBe(200);
    const renamed = expectFolder(res.body, { projectId: p.projectId, parentId: parent.id, name: "after" });
    expect(renamed.id).toBe(folder.id);
    expect(renamed.createdAt).toBe(folder.createdAt);
    expect(renamed.updatedAt).toBeGreaterThan(folder.updatedAt);
    expect((await p.client.get(`/folders/${folder.id}`)).body).toEqual(renamed);
  });

  it("accepts its own current name and an empty body without changes", async () => {
    const folder = await create(p.client, p.projectId, "same-name");
    expect((await p.client.patch(`/folders/${folder.id}`, { name: "same-name" })).body).toEqual(folder);
    expect((await p.client.patch(`/folders/${folder.id}`, {})).body).toEqual(folder);
  });

  it("returns 409 folder/duplicate-name when a sibling has the name, but allows a name used elsewhere", async () => {
    const { client, projectId } = await newProject();
    const a = await create(client, projectId, "a");
    const b = await create(client, projectId, "b");
    await create(client, projectId, "c", a.id);
    expectError(await client.patch(`/folders/${b.id}`, { name: "a" }), 409, "folder/duplicate-name");
    expect((await client.patch(`/folders/${b.id}`, { name: "c" })).status).toBe(200);
    expect((await client.get(`/folders/${b.id}`)).body.name).toBe("c");
  });

  it("validates the name like create", async () => {
    const folder = await create(p.client, p.projectId, "rename-invalid");
    for (const body of [{ name: "" }, { name: "n".repeat(101) }, { name: "a/b" }, { name: null }, { name: "ok", parentId: null }]) {
      expectError(await p.client.patch(`/folders/${folder.id}`, body), 400, "request/validation-failed");
    }
    expect((await p.client.get(`/folders/${folder.id}`)).body).toEqual(folder);
  });

  it("returns 404 for unknown ids and 403 for another project's folder", async () => {
    expectError(await p.client.patch(`/folders/${randomUUID()}`, { name: "x" }), 404, "folder/not-found");
    expectError(await p.client.patch("/folders/123", { name: "x" }), 404, "folder/not-found");
    expectError(await p.client.patch(`/folders/${otherFolder.id}`, { name: "hijacked" }), 403, "auth/project-mismatch");
    expect((await other.client.get(`/folders/${otherFolder.id}`)).body.name).toBe("theirs");
  });
});

describe("authentication and permissions on every folder endpoint", () => {
  const endpoints = (folderId: string) =>
    [
      { method: "GET", path: `/projects/${p.projectId}/folders`, write: false },
      { method: "POST", path: `/projects/${p.projectId}/folders`, json: { name: "auth-probe" }, write: true },
      { method: "GET", path: `/folders/${folderId}`, write: false },
      { method: "PATCH", path: `/folders/${folderId}`, json: { name: "auth-probe-2" }, write: true },
      { method: "DELETE", path: `/folders/${folderId}`, write: true },
      { method: "POST", path: `/folders/${folderId}/move`, json: { parentId: null }, write: true },
    ] as const;

  it("returns 401 auth/missing-token and auth/invalid-api-key", async () => {
    const folder = await create(p.client, p.projectId, "auth-target");
    for (const e of endpoints(folder.id)) {
      const json = "json" in e ? e.json : undefined;
      expectError(await new ApiClient(null).request(e.method, e.path, { json }), 401, "auth/missing-token");
      expectError(await new ApiClient("sieve_wrong").request(e.method, e.path, { json }), 401, "auth/invalid-api-key");
    }
  });

  it("lets an assets:read key read but not change folders (403 auth/insufficient-permissions)", async () => {
    const folder = await create(p.client, p.projectId, "perm-target");
    const reader = await newKey(p.projectId, ["assets:read"]);
    const writer = await newKey(p.projectId, ["assets:write"]);
    for (const e of endpoints(folder.id)) {
      const json = "json" in e ? e.json : undefined;
      const asReader = await reader.client.request(e.method, e.path, { json });
      if (e.write) expectError(asReader, 403, "auth/insufficient-permissions");
      else expect(asReader.status).toBe(200);
      if (!e.write) expectError(await writer.client.request(e.method, e.path, { json }), 403, "auth/insufficient-permissions");
    }
    expect((await p.client.get(`/folders/${folder.id}`)).body).toEqual(folder);
  });
});
