import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { expectError, newProject, type TestProject } from "./support";
import { expectFolder, create, list, type Folder } from "./folders-support";

/**
 * Deleting and moving folders (only empty folders can be deleted, no moves into the folder's own
 * subtree, parentId null meaning the project root) and concurrent renames, moves and deletes.
 */

let p: TestProject;
let other: TestProject;
let otherFolder: Folder;

beforeAll(async () => {
  [p, other] = await Promise.all([newProject(), newProject()]);
  otherFolder = await create(other.client, other.projectId, "theirs");
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
