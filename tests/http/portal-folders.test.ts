import { beforeAll, describe, expect, it } from "vitest";
import { BENIGN, createText } from "./events-support";
import { portal, portalUser, type PortalUser } from "./portal-support";
import { expectError, expectOk, newFolder, newProject, type TestProject } from "./support";

/** The folders page's JSON routes: the API's folder rules through the session, roles, the asset list and moves. */

let p: TestProject;
let other: TestProject;
let member: PortalUser;
let viewer: PortalUser;
let outsider: PortalUser;

beforeAll(async () => {
  [p, other] = await Promise.all([newProject(), newProject()]);
  [member, viewer, outsider] = await Promise.all([portalUser(p, "member"), portalUser(p, "viewer"), portalUser(null, null)]);
});

const base = () => `/projects/${p.projectId}/folders`;
/** A DELETE as the page sends it: no body, Content-Type JSON (the portal's CSRF rule for writes). */
const del = (cookie: string, path: string) => portal(cookie, "DELETE", path, { headers: { "Content-Type": "application/json" } });
const create = async (name: string, parentId: string | null = null) => expectOk(await portal(member.cookie, "POST", base(), { json: { name, parentId } }));

describe("folder changes through the portal", () => {
  it("creates, renames, moves and deletes a folder, seen by the list and the API", async () => {
    const parent = await create("Campaigns");
    const child = await create("Spring", parent.id);
    expect(child).toMatchObject({ name: "Spring", parentId: parent.id, projectId: p.projectId });
    const renamed = expectOk(await portal(member.cookie, "PATCH", `${base()}/${child.id}`, { json: { name: "Summer" } }));
    expect(renamed.name).toBe("Summer");
    const moved = expectOk(await portal(member.cookie, "POST", `${base()}/${child.id}/move`, { json: { parentId: null } }));
    expect(moved.parentId).toBeNull();
    const listed = expectOk(await portal(viewer.cookie, "GET", base())).folders;
    expect(listed).toContainEqual({ id: child.id, name: "Summer", parentId: null });
    expect(expectOk(await del(member.cookie, `${base()}/${child.id}`))).toEqual({});
    expectError(await p.client.get(`/folders/${child.id}`), 404, "folder/not-found");
  });

  it("answers the spec's four rules with their codes", async () => {
    const a = await create(`Rules ${crypto.randomUUID()}`);
    const b = await create("B", a.id);
    await create("Taken", a.id);
    expectError(await portal(member.cookie, "POST", base(), { json: { name: "B", parentId: a.id } }), 409, "folder/duplicate-name");
    expectError(await portal(member.cookie, "PATCH", `${base()}/${b.id}`, { json: { name: "Taken" } }), 409, "folder/duplicate-name");
    expectError(await portal(member.cookie, "POST", `${base()}/${a.id}/move`, { json: { parentId: b.id } }), 409, "folder/parent-cycle");
    expectError(await portal(member.cookie, "POST", `${base()}/${a.id}/move`, { json: { parentId: a.id } }), 409, "folder/parent-cycle");
    expectError(await del(member.cookie, `${base()}/${a.id}`), 409, "folder/not-empty");
    // Rule 4: parentId null puts the folder at the root.
    expect(expectOk(await portal(member.cookie, "POST", `${base()}/${b.id}/move`, { json: { parentId: null } })).parentId).toBeNull();
  });

  it("validates names and bodies like the API", async () => {
    for (const name of ["", "   ", "a/b", "a\\b", "x".repeat(101)]) {
      expectError(await portal(member.cookie, "POST", base(), { json: { name } }), 400, "request/validation-failed");
    }
    expectError(await portal(member.cookie, "POST", base(), { json: { name: "ok", colour: "red" } }), 400, "request/validation-failed");
    expectError(await portal(member.cookie, "POST", base(), { json: { name: "ok", parentId: crypto.randomUUID() } }), 404, "folder/not-found");
  });

  it("refuses another project's folder, a viewer's change, an outsider and a cross-site write", async () => {
    const foreign = await newFolder(other, "Theirs");
    expectError(await portal(member.cookie, "PATCH", `${base()}/${foreign}`, { json: { name: "Mine" } }), 403, "auth/project-mismatch");
    expectError(await del(member.cookie, `${base()}/${foreign}`), 403, "auth/project-mismatch");
    expectError(await portal(viewer.cookie, "POST", base(), { json: { name: "Nope" } }), 403, "auth/insufficient-permissions");
    const mine = await create(`Viewer ${crypto.randomUUID()}`);
    expectError(await del(viewer.cookie, `${base()}/${mine.id}`), 403, "auth/insufficient-permissions");
    expectError(await portal(outsider.cookie, "GET", base()), 404, "project/not-found");
    expectError(await portal(member.cookie, "POST", base(), { json: { name: "x" }, headers: { Origin: "https://evil.example" } }), 403, "auth/cross-site-request");
    expectError(await portal(null, "GET", base()), 401, "auth/not-signed-in");
    // A bodyless DELETE without the JSON declaration is refused like a form post.
    expectError(await portal(member.cookie, "DELETE", `${base()}/${mine.id}`), 403, "auth/cross-site-request");
  });
});

describe("a folder's assets", () => {
  it("lists a folder's assets with the API list's filters, sort and paging", async () => {
    const folder = await create(`Assets ${crypto.randomUUID()}`);
    const names = ["Beach *star*.txt", "beach day.txt", "Mountain.txt"];
    const assets: Record<string, any>[] = [];
    for (const name of names) assets.push(await createText(p, BENIGN, name));
    const moved = expectOk(await portal(member.cookie, "POST", `${base()}/assets/move`, { json: { folderId: folder.id, assetIds: assets.map((a) => a.id) } }));
    expect(moved).toEqual({ moved: assets.map((a) => a.id), failed: [] });

    const list = async (query: string) => expectOk(await portal(viewer.cookie, "GET", `${base()}/assets?folderId=${folder.id}&${query}`));
    const all = await list("sort=name");
    const byName = all.items.map((a: { name: string }) => a.name);
    expect([...byName].sort()).toEqual([...names].sort());
    expect((await list("sort=-name")).items.map((a: { name: string }) => a.name)).toEqual([...byName].reverse());
    expect(all.total).toBe(3);
    expect(Object.keys(all.items[0]).sort()).toEqual(["createdAt", "folderId", "id", "name", "sizeInBytes", "status", "type"]);
    expect((await list("name=BEACH")).items.map((a: { name: string }) => a.name).sort()).toEqual(["Beach *star*.txt", "beach day.txt"]);
    // The search is literal: * is not a wildcard, quotes are characters.
    expect((await list(`name=${encodeURIComponent("*star*")}`)).items.map((a: { name: string }) => a.name)).toEqual(["Beach *star*.txt"]);
    expect((await list(`name=${encodeURIComponent('"')}`)).total).toBe(0);
    expect((await list("type=plaintext-document&status=approved")).total).toBe(3);
    expect((await list("type=image")).total).toBe(0);
    const page = await list("sort=-createdAt&pageSize=2&pageIndex=1");
    expect(page).toMatchObject({ total: 3, hasMore: false });
    expect(page.items.map((a: { id: string }) => a.id)).toEqual([assets[0]?.id]);

    const root = expectOk(await portal(viewer.cookie, "GET", `${base()}/assets?folderId=root&pageSize=100`));
    expect(root.items.some((a: { id: string }) => assets.some((x) => x.id === a.id))).toBe(false);
    expectError(await portal(viewer.cookie, "GET", `${base()}/assets?folderId=root&sort=colour`), 400, "request/validation-failed");
    expectError(await portal(viewer.cookie, "GET", `${base()}/assets?folderId=${crypto.randomUUID()}`), 404, "folder/not-found");
    expectError(await portal(viewer.cookie, "GET", `${base()}/assets?folderId=${await newFolder(other, "x")}`), 403, "auth/project-mismatch");
  });

  it("moves assets back to the root, reports assets it may not move, and makes a non-empty folder undeletable", async () => {
    const folder = await create(`Move ${crypto.randomUUID()}`);
    const mine = await createText(p, BENIGN, "mine.txt");
    const theirs = await createText(other, BENIGN, "theirs.txt");
    const result = expectOk(await portal(member.cookie, "POST", `${base()}/assets/move`, { json: { folderId: folder.id, assetIds: [mine.id, theirs.id] } }));
    expect(result.moved).toEqual([mine.id]);
    expect(result.failed).toEqual([{ assetId: theirs.id, code: "auth/project-mismatch", message: expect.any(String) }]);
    expect(expectOk(await p.client.get(`/assets/${mine.id}`)).folderId).toBe(folder.id);
    expectError(await del(member.cookie, `${base()}/${folder.id}`), 409, "folder/not-empty");

    expectOk(await portal(member.cookie, "POST", `${base()}/assets/move`, { json: { folderId: null, assetIds: [mine.id] } }));
    expect(expectOk(await p.client.get(`/assets/${mine.id}`)).folderId).toBeNull();
    expect(expectOk(await del(member.cookie, `${base()}/${folder.id}`))).toEqual({});
  });

  it("refuses bad moves: a viewer, an unknown or foreign folder, repeated or too many ids", async () => {
    const asset = await createText(p, BENIGN, "stay.txt");
    const move = (cookie: string, json: unknown) => portal(cookie, "POST", `${base()}/assets/move`, { json });
    expectError(await move(viewer.cookie, { folderId: null, assetIds: [asset.id] }), 403, "auth/insufficient-permissions");
    expectError(await move(member.cookie, { folderId: crypto.randomUUID(), assetIds: [asset.id] }), 404, "folder/not-found");
    expectError(await move(member.cookie, { folderId: await newFolder(other, "y"), assetIds: [asset.id] }), 403, "auth/project-mismatch");
    expectError(await move(member.cookie, { folderId: null, assetIds: [asset.id, asset.id] }), 400, "request/validation-failed");
    expectError(await move(member.cookie, { folderId: null, assetIds: [] }), 400, "request/validation-failed");
    const many = Array.from({ length: 101 }, () => crypto.randomUUID());
    expectError(await move(member.cookie, { folderId: null, assetIds: many }), 400, "request/validation-failed");
    expect(expectOk(await p.client.get(`/assets/${asset.id}`)).folderId).toBeNull();
  });
});
