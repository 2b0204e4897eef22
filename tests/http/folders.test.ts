import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { ApiClient, expectError, newKey, newProject, type TestProject } from "./support";

/**
 * The folder endpoints and the spec's four rules: unique sibling names, only empty folders can be
 * deleted, no moves into the folder's own subtree, and parentId null meaning the project root.
 */

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface Folder {
  id: string;
  projectId: string;
  parentId: string | null;
  name: string;
  createdAt: number;
  updatedAt: number;
}

/** Checks the exact Folder shape and returns it typed. */
function expectFolder(value: unknown, expected: { projectId: string; parentId: string | null; name: string }): Folder {
  const folder = value as Folder;
  expect(Object.keys(folder).sort()).toEqual(["createdAt", "id", "name", "parentId", "projectId", "updatedAt"]);
  expect(folder.id).toMatch(UUID_RE);
  expect(folder).toMatchObject(expected);
  expect(Number.isInteger(folder.createdAt)).toBe(true);
  expect(Number.isInteger(folder.updatedAt)).toBe(true);
  expect(Math.abs(folder.createdAt - Date.now())).toBeLessThan(60_000);
  expect(folder.updatedAt).toBeGreaterThanOrEqual(folder.createdAt);
  return folder;
}

async function create(client: ApiClient, projectId: string, name: string, parentId?: string | null): Promise<Folder> {
  const res = await client.post(`/projects/${projectId}/folders`, parentId === undefined ? { name } : { name, parentId });
  if (res.status !== 200) throw new Error(`creating folder "${name}" failed: ${res.status} ${res.text}`);
  return expectFolder(res.body, { projectId, parentId: parentId ?? null, name });
}

async function list(client: ApiClient, projectId: string): Promise<Folder[]> {
  const res = await client.get(`/projects/${projectId}/folders`);
  expect(res.status).toBe(200);
  expect(Object.keys(res.body)).toEqual(["folders"]);
  return res.body.folders;
}

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

describe("delete folder", () => {
  it("deletes an empty folder and returns {}", async () => {
    const folder = await create(p.client, p.projectId, "delete-me");
    const res = await p.client.delete(`/folders/${folder.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({});
    expectError(await p.client.get(`/folders/${folder.id}`), 404, "folder/not-found");
    expectError(await p.client.delete(`/folders/${folder.id}`), 404, "folder/not-found");
    expect((await list(p.client, p.projectId)).map((f) => f.id)).not.toContain(folder.id);
  });

  it("returns 409 folder/not-empty while it holds a subfolder", async () => {
    const parent = await create(p.client, p.projectId, "has-child");
    const child = await create(p.client, p.projectId, "child", parent.id);
    expectError(await p.client.delete(`/folders/${parent.id}`), 409, "folder/not-empty");
    expect((await p.client.get(`/folders/${parent.id}`)).status).toBe(200);
    expect((await p.client.delete(`/folders/${child.id}`)).status).toBe(200);
    expect((await p.client.delete(`/folders/${parent.id}`)).body).toEqual({});
  });

  it("returns 409 folder/not-empty while it holds an asset", async () => {
    const folder = await create(p.client, p.projectId, "has-asset");
    const asset = await p.client.post(`/projects/${p.projectId}/assets?queue=true`, {
      name: "note.txt",
      folderId: folder.id,
      content: { plainText: "hello", type: "text/plain" },
    });
    expect(asset.status).toBe(200);
    expect(asset.body.folderId).toBe(folder.id);
    expectError(await p.client.delete(`/folders/${folder.id}`), 409, "folder/not-empty");
    // Once the asset moves out, the folder can go.
    expect((await p.client.post(`/assets/${asset.body.id}/move`, { folderId: null })).status).toBe(200);
    expect((await p.client.delete(`/folders/${folder.id}`)).body).toEqual({});
  });

  it("returns 404 for unknown ids and 403 for another project's folder", async () => {
    expectError(await p.client.delete(`/folders/${randomUUID()}`), 404, "folder/not-found");
    expectError(await p.client.delete("/folders/not-a-uuid"), 404, "folder/not-found");
    expectError(await p.client.delete(`/folders/${otherFolder.id}`), 403, "auth/project-mismatch");
    expect((await other.client.get(`/folders/${otherFolder.id}`)).status).toBe(200);
  });
});

describe("move folder", () => {
  it("moves a folder under another one and back to the root with parentId null", async () => {
    const target = await create(p.client, p.projectId, "move-target");
    const folder = await create(p.client, p.projectId, "mover");
    const child = await create(p.client, p.projectId, "mover-child", folder.id);

    const moved = await p.client.post(`/folders/${folder.id}/move`, { parentId: target.id });
    expect(moved.status).toBe(200);
    const under = expectFolder(moved.body, { projectId: p.projectId, parentId: target.id, name: "mover" });
    expect(under.id).toBe(folder.id);
    expect(under.createdAt).toBe(folder.createdAt);
    // The subtree moves along: the child still hangs below the moved folder.
    expect((await p.client.get(`/folders/${child.id}`)).body.parentId).toBe(folder.id);

    const back = await p.client.post(`/folders/${folder.id}/move`, { parentId: null });
    expect(back.status).toBe(200);
    expectFolder(back.body, { projectId: p.projectId, parentId: null, name: "mover" });
    expect((await p.client.get(`/folders/${folder.id}`)).body.parentId).toBeNull();
  });

  it("accepts a move to the current parent without changes", async () => {
    const folder = await create(p.client, p.projectId, "stay");
    expect((await p.client.post(`/folders/${folder.id}/move`, { parentId: null })).body).toEqual(folder);
  });

  it("returns 409 folder/parent-cycle for a move into itself or a descendant", async () => {
    const { client, projectId } = await newProject();
    const top = await create(client, projectId, "top");
    const mid = await create(client, projectId, "mid", top.id);
    const leaf = await create(client, projectId, "leaf", mid.id);
    for (const target of [top, mid, leaf]) {
      expectError(await client.post(`/folders/${top.id}/move`, { parentId: target.id }), 409, "folder/parent-cycle");
    }
    expectError(await client.post(`/folders/${mid.id}/move`, { parentId: leaf.id }), 409, "folder/parent-cycle");
    expectError(await client.post(`/folders/${mid.id}/move`, { parentId: mid.id }), 409, "folder/parent-cycle");
    // Nothing changed, and moving up the tree is fine.
    expect((await list(client, projectId)).map((f) => [f.name, f.parentId])).toEqual([
      ["top", null],
      ["mid", top.id],
      ["leaf", mid.id],
    ]);
    expect((await client.post(`/folders/${leaf.id}/move`, { parentId: top.id })).body.parentId).toBe(top.id);
  });

  it("returns 409 folder/duplicate-name when the new parent has a folder with the same name", async () => {
    const { client, projectId } = await newProject();
    const a = await create(client, projectId, "a");
    const b = await create(client, projectId, "b");
    await create(client, projectId, "same", a.id);
    const mover = await create(client, projectId, "same", b.id);
    expectError(await client.post(`/folders/${mover.id}/move`, { parentId: a.id }), 409, "folder/duplicate-name");
    await create(client, projectId, "same");
    expectError(await client.post(`/folders/${mover.id}/move`, { parentId: null }), 409, "folder/duplicate-name");
    expect((await client.get(`/folders/${mover.id}`)).body.parentId).toBe(b.id);
  });

  it("returns 404 folder/not-found for a target parent that does not exist or belongs to another project", async () => {
    const folder = await create(p.client, p.projectId, "move-404");
    expectError(await p.client.post(`/folders/${folder.id}/move`, { parentId: randomUUID() }), 404, "folder/not-found");
    expectError(await p.client.post(`/folders/${folder.id}/move`, { parentId: otherFolder.id }), 404, "folder/not-found");
    expect((await p.client.get(`/folders/${folder.id}`)).body.parentId).toBeNull();
  });

  it("returns 404 for an unknown folder and 403 for another project's folder", async () => {
    const mine = await create(p.client, p.projectId, "move-mine");
    expectError(await p.client.post(`/folders/${randomUUID()}/move`, { parentId: null }), 404, "folder/not-found");
    expectError(await p.client.post("/folders/not-a-uuid/move", { parentId: null }), 404, "folder/not-found");
    expectError(await p.client.post(`/folders/${otherFolder.id}/move`, { parentId: mine.id }), 403, "auth/project-mismatch");
    expectError(await p.client.post(`/folders/${otherFolder.id}/move`, { parentId: null }), 403, "auth/project-mismatch");
  });

  it("requires parentId (UUID or null) and nothing else", async () => {
    const folder = await create(p.client, p.projectId, "move-invalid");
    for (const body of [{}, { parentId: "nope" }, { parentId: 1 }, { parentId: null, name: "x" }]) {
      expectError(await p.client.post(`/folders/${folder.id}/move`, body), 400, "request/validation-failed");
    }
  });
});

describe("concurrent changes", () => {
  it("keeps sibling names unique when a rename and a move of the same folder race", async () => {
    const { client, projectId } = await newProject();
    const target = await create(client, projectId, "target");
    await create(client, projectId, "taken", target.id);
    // Each change alone is fine; together they would put a second "taken" into target.
    for (let round = 0; round < 5; round++) {
      const folder = await create(client, projectId, `racer-${round}`);
      const [renamed, moved] = await Promise.all([
        client.patch(`/folders/${folder.id}`, { name: "taken" }),
        client.post(`/folders/${folder.id}/move`, { parentId: target.id }),
      ]);
      expect([renamed.status, moved.status].sort()).toEqual([200, 409]);
      for (const res of [renamed, moved]) if (res.status === 409) expectError(res, 409, "folder/duplicate-name");
      const final = (await client.get(`/folders/${folder.id}`)).body as Folder;
      if (final.parentId === target.id) {
        expect(final.name).toBe(`racer-${round}`);
        expect((await client.delete(`/folders/${folder.id}`)).status).toBe(200);
      } else {
        expect(final).toMatchObject({ parentId: null, name: "taken" });
        expect((await client.delete(`/folders/${folder.id}`)).status).toBe(200);
      }
    }
    const inTarget = (await list(client, projectId)).filter((f) => f.parentId === target.id);
    expect(inTarget.map((f) => f.name)).toEqual(["taken"]);
  });

  it("lets only one of two crossing moves succeed (no cycle)", async () => {
    const { client, projectId } = await newProject();
    for (let round = 0; round < 3; round++) {
      const a = await create(client, projectId, `a-${round}`);
      const b = await create(client, projectId, `b-${round}`);
      const [ab, ba] = await Promise.all([
        client.post(`/folders/${a.id}/move`, { parentId: b.id }),
        client.post(`/folders/${b.id}/move`, { parentId: a.id }),
      ]);
      expect([ab.status, ba.status].sort()).toEqual([200, 409]);
      for (const res of [ab, ba]) if (res.status === 409) expectError(res, 409, "folder/parent-cycle");
    }
  });

  it("answers concurrent deletes of one folder with one {} and 404 for the rest", async () => {
    const folder = await create(p.client, p.projectId, "delete-race");
    const responses = await Promise.all(Array.from({ length: 5 }, () => p.client.delete(`/folders/${folder.id}`)));
    expect(responses.filter((r) => r.status === 200).map((r) => r.body)).toEqual([{}]);
    for (const res of responses) if (res.status !== 200) expectError(res, 404, "folder/not-found");
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
