import { stat } from "node:fs/promises";
import path from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { db } from "@/lib/db/client";
import { ApiClient, expectError, newKey, newProject, pngBytes, waitForDecision, type TestProject, admin, expectOk } from "./support";

/**
 * Reading, listing, changing, moving and deleting assets; safety holds through the admin CLI.
 * Text and PNG uploads here use queue=false (the default), so they come back decided (`approved`)
 * and do not change afterwards; tests that look at stored bytes upload with
 * keepContentAfterProcessing, since processing otherwise removes the content.
 */
const KEEP = { processingOptions: { keepContentAfterProcessing: true } };

const NO_SUCH_ID = "00000000-0000-4000-8000-000000000000";

/** Runs the operator CLI against the test database; returns its one JSON line. */
async function storedFileExists(storageId: string): Promise<boolean> {
  const file = path.join(inject("dataDir"), "storage", ...storageId.split("/"));
  return stat(file).then(
    () => true,
    () => false,
  );
}

async function createText(p: TestProject, name: string, extra: Record<string, unknown> = {}, text = `content of ${name}`) {
  return expectOk(await p.client.post(`/projects/${p.projectId}/assets`, { name, content: { plainText: text, type: "text/plain" }, ...extra }));
}

async function createPng(p: TestProject, name: string, extra: Record<string, unknown> = {}) {
  const png = await pngBytes(4, 4);
  return expectOk(await p.client.post(`/projects/${p.projectId}/assets`, { name, content: { base64: png.toString("base64"), type: "image/png" }, ...extra }));
}

async function newFolder(p: TestProject, name: string): Promise<string> {
  return expectOk(await p.client.post(`/projects/${p.projectId}/folders`, { name })).id as string;
}

/** An extracted child asset; the pipeline makes none for the text and PNG parents used here, so it goes in directly. */
async function insertChild(parent: Record<string, any>, name: string, withContent = false) {
  return db().asset.create({
    data: {
      projectId: parent.projectId,
      parentId: parent.id,
      name,
      type: "plaintext_document",
      status: "pending",
      fileFormat: "text/plain",
      storageId: withContent ? `projects/${parent.projectId}/assets/${parent.id}/derived-${name}` : null,
    },
  });
}

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
    const res = await p.client.request("PATCH", `/assets/${asset.id}`, {
      body: Buffer.alloc(64 * 1024 * 1024 + 1, 0x20),
      headers: { "Content-Type": "application/json" },
    });
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
    const { storageId: _s, storageDeletedAt: _d, updatedAt: _u, ...kept } = asset;
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

describe("GET /projects/:id/assets/page", () => {
  let l: TestProject;
  let folderId: string;
  const a: Record<string, Record<string, any>> = {};
  const ids = (page: Record<string, any>): string[] => page.items.map((x: { id: string }) => x.id);
  const names = (page: Record<string, any>): string[] => page.items.map((x: { name: string }) => x.name);
  const list = (query: Record<string, string> = {}) =>
    l.client.get(`/projects/${l.projectId}/assets/page?${new URLSearchParams(query).toString()}`);
  /** Names of the matches, sorted case-insensitively here (independent of the database collation). */
  const filtered = async (filter: string) =>
    names(expectOk(await list({ filter, pageSize: "100" }))).sort((x, y) => x.toLowerCase().localeCompare(y.toLowerCase()));

  beforeAll(async () => {
    l = await newProject();
    folderId = await newFolder(l, "list-folder");
    const pdf = Buffer.from("%PDF-1.4\n%%EOF\n", "latin1");
    // A few milliseconds between writes keep createdAt/updatedAt strictly ordered.
    const tick = () => new Promise((resolve) => setTimeout(resolve, 5));
    a.one = await createText(l, "Pre-one.txt", { visibility: "private", externalId: "ext-1" }, "1");
    await tick();
    a.two = await createPng(l, "pre-two.png", { folderId });
    await tick();
    a.three = expectOk(
      await l.client.post(`/projects/${l.projectId}/assets`, {
        name: "three.pdf",
        visibility: "public",
        content: { base64: pdf.toString("base64"), type: "application/pdf" },
      }),
    );
    await tick();
    a.four = await createText(l, "four.txt", { folderId, visibility: "private", externalId: "ext-4" }, "four four");
    await tick();
    a.five = await createPng(l, "five.png");
    await tick();
    a.six = expectOk(
      await l.client.post(`/projects/${l.projectId}/assets`, { name: "six.txt", part: { plainText: "partial", type: "text/plain" } }),
    );
    // Text and PNGs come back decided (approved); the PDF is decided in the background and, being
    // malformed, ends in `error`. Wait for it so no status or updatedAt changes under the tests.
    expect([a.one, a.two, a.four, a.five].map((x) => x!.status)).toEqual(["approved", "approved", "approved", "approved"]);
    expect(a.three.status).toBe("pending");
    a.three = await waitForDecision(l.client, a.three.id);
    expect(a.three.status).toBe("error");
    expect(a.six.status).toBe("uploading");
    await tick();
    expectOk(await l.client.patch(`/assets/${a.one.id}`, { tags: ["summer", "beach"] }));
    await tick();
    expectOk(await l.client.patch(`/assets/${a.four.id}`, { tags: ["winter"] }));
    await insertChild(a.one, "one-child");
  });

  it("paginates with pageIndex/pageSize/total/hasMore, newest first by default, pages never overlap", async () => {
    const filter = "status!=uploading";
    const pages: Record<string, any>[] = [];
    for (let pageIndex = 0; pageIndex < 4; pageIndex++) {
      pages.push(expectOk(await list({ filter, pageSize: "2", pageIndex: String(pageIndex) })));
    }
    expect(pages.map((pg) => pg.total)).toEqual([5, 5, 5, 5]);
    expect(pages.map((pg) => pg.items.length)).toEqual([2, 2, 1, 0]);
    expect(pages.map((pg) => pg.hasMore)).toEqual([true, true, false, false]);
    const seen = pages.flatMap(ids);
    expect(new Set(seen).size).toBe(5);
    expect(seen).toEqual([a.five, a.four, a.three, a.two, a.one].map((x) => x!.id));
    expect(Object.keys(pages[0]!).sort()).toEqual(["hasMore", "items", "total"]);

    const everything = expectOk(await list());
    expect(everything).toMatchObject({ total: 6, hasMore: false });
    expect(everything.items[0].id).toBe(a.six!.id);
  });

  it("out-of-range and unknown query parameters → 400", async () => {
    const bad: Record<string, string>[] = [{ pageSize: "0" }, { pageSize: "101" }, { pageIndex: "-1" }, { pageSize: "1.5" }, { sort: "status" }, { order: "asc" }];
    for (const query of bad) {
      expectError(await list(query), 400, "request/validation-failed");
    }
    expect(expectOk(await list({ pageSize: "100" })).items).toHaveLength(6);
    expect(expectOk(await list({ pageSize: "1" })).items).toHaveLength(1);
  });

  it("sorts by name, size and creation time in both directions", async () => {
    const byName = names(expectOk(await list({ sort: "name", filter: "status!=uploading" })));
    const byNameDesc = names(expectOk(await list({ sort: "-name", filter: "status!=uploading" })));
    expect(byNameDesc).toEqual([...byName].reverse());
    expect(new Set(byName)).toEqual(new Set(["five.png", "four.txt", "Pre-one.txt", "pre-two.png", "three.pdf"]));
    // Whatever the collation does with upper case, lower-case names keep their order.
    const lower = byName.filter((n) => n === n.toLowerCase());
    expect(lower).toEqual(["five.png", "four.txt", "pre-two.png", "three.pdf"]);

    const bySize = expectOk(await list({ sort: "sizeInBytes", filter: "status!=uploading" })).items.map((x: { sizeInBytes: number }) => x.sizeInBytes);
    expect(bySize).toEqual([...bySize].sort((x, y) => x - y));
    expect(bySize[0]).toBe(1);
    const byCreated = ids(expectOk(await list({ sort: "createdAt", filter: "status!=uploading" })));
    expect(byCreated).toEqual([a.one, a.two, a.three, a.four, a.five].map((x) => x!.id));
    const byUpdated = ids(expectOk(await list({ sort: "-updatedAt", filter: "status!=uploading" })));
    expect(byUpdated[0]).toBe(a.four!.id);
  });

  it("filters by status, type, folder, externalId, name, visibility, moderationAction, tags, size and dates", async () => {
    expect(await filtered("status!=uploading")).toHaveLength(5);
    expect(await filtered("status==uploading")).toEqual(["six.txt"]);
    expect(await filtered("status==pending")).toEqual([]);
    expect(await filtered("status==approved")).toEqual(["five.png", "four.txt", "Pre-one.txt", "pre-two.png"]);
    expect(await filtered("status==error")).toEqual(["three.pdf"]);
    expect(await filtered("status=in=(approved,rejected)")).toEqual(["five.png", "four.txt", "Pre-one.txt", "pre-two.png"]);
    expect(await filtered("status=in=(pending,error)")).toEqual(["three.pdf"]);
    expect(await filtered("status=out=(approved,uploading)")).toEqual(["three.pdf"]);
    expect(await filtered("type==image")).toEqual(["five.png", "pre-two.png"]);
    expect(await filtered("type==plaintext-document")).toEqual(["four.txt", "Pre-one.txt", "six.txt"]);
    expect(await filtered("type==multimedia-document")).toEqual(["three.pdf"]);
    expect(await filtered("folderId==null")).toEqual(["five.png", "Pre-one.txt", "six.txt", "three.pdf"]);
    expect(await filtered(`folderId==${folderId}`)).toEqual(["four.txt", "pre-two.png"]);
    expect(await filtered(`folderId==${folderId.toUpperCase()}`)).toEqual(["four.txt", "pre-two.png"]);
    expect(await filtered("externalId==ext-1")).toEqual(["Pre-one.txt"]);
    expect(await filtered("externalId==ext-*")).toEqual(["four.txt", "Pre-one.txt"]);
    expect(await filtered("externalId==null")).toHaveLength(4);
    expect(await filtered("name==pre*")).toEqual(["Pre-one.txt", "pre-two.png"]);
    expect(await filtered("name==*.PNG")).toEqual(["five.png", "pre-two.png"]);
    expect(await filtered("visibility==private")).toEqual(["four.txt", "Pre-one.txt"]);
    expect(await filtered("visibility==null")).toEqual(["five.png", "pre-two.png", "six.txt"]);
    expect(await filtered("moderationAction==null")).toHaveLength(6);
    expect(await filtered("moderationAction!=null")).toEqual([]);
    expect(await filtered("moderationAction!=hide")).toHaveLength(6);
    expect(await filtered("tags==summer")).toEqual(["Pre-one.txt"]);
    expect(await filtered("tags=in=(beach,winter)")).toEqual(["four.txt", "Pre-one.txt"]);
    expect(await filtered("fileFormat==image/png")).toEqual(["five.png", "pre-two.png"]);
    expect(await filtered("sizeInBytes==null")).toEqual(["six.txt"]);
    expect(await filtered("sizeInBytes<=1")).toEqual(["Pre-one.txt"]);
    expect(await filtered(`createdAt>${a.three!.createdAt};status!=uploading`)).toEqual(["five.png", "four.txt"]);
    expect(await filtered(`createdAt>=${new Date(a.three!.createdAt).toISOString()};createdAt<${a.five!.createdAt}`)).toEqual([
      "four.txt",
      "three.pdf",
    ]);
  });

  it("combines conditions with ; (and) and , (or); and binds tighter than or", async () => {
    expect(await filtered("type==image;folderId==null")).toEqual(["five.png"]);
    expect(await filtered("type==image,visibility==public")).toEqual(["five.png", "pre-two.png", "three.pdf"]);
    expect(await filtered("visibility==public,type==image;folderId==null")).toEqual(["five.png", "three.pdf"]);
    expect(await filtered("(visibility==public,type==image);folderId==null")).toEqual(["five.png", "three.pdf"]);
    expect(await filtered("(visibility==private,type==image);folderId!=null")).toEqual(["four.txt", "pre-two.png"]);
    expect(await filtered("status==approved and name==pre* or name==six.txt")).toEqual(["Pre-one.txt", "pre-two.png", "six.txt"]);
    expect(await filtered("   ")).toHaveLength(6);
  });

  it("lists children only when the filter mentions parentId", async () => {
    expect(await filtered("name==one-child")).toEqual([]);
    expect(await filtered(`parentId==${a.one!.id}`)).toEqual(["one-child"]);
    expect(await filtered("parentId!=null")).toEqual(["one-child"]);
    expect(await filtered("parentId==null")).toHaveLength(6);
  });

  it("an invalid filter → 400 request/validation-failed naming the position", async () => {
    const cases: [string, string][] = [
      ["status==approved;colour==red", "position 18"],
      ["status=gt=approved", "position 7"],
      ["folderId==abc", "position 11"],
      ['name=="holiday', "position 7"],
      ["status==", "position"],
      ["type==picture", "position"],
      ["createdAt>2024-05-01T00:00:00", "position"],
      ["status==null", "position"],
      ["(status==pending", "position"],
    ];
    for (const [filter, where] of cases) {
      const body = expectError(await list({ filter }), 400, "request/validation-failed");
      expect(body.message, filter).toContain(where);
    }
    expectError(await list({ filter: `name==${"x".repeat(2001)}` }), 400, "request/validation-failed");
  });

  it("project errors", async () => {
    expectError(await l.client.get(`/projects/${NO_SUCH_ID}/assets/page`), 404, "project/not-found");
    expectError(await l.client.get(`/projects/nope/assets/page`), 404, "project/not-found");
    expectError(await other.client.get(`/projects/${l.projectId}/assets/page`), 403, "auth/project-mismatch");
    expectError(await new ApiClient(null).get(`/projects/${l.projectId}/assets/page`), 401, "auth/missing-token");
    const writeOnly = await newKey(l.projectId, ["assets:write"]);
    expectError(await writeOnly.client.get(`/projects/${l.projectId}/assets/page`), 403, "auth/insufficient-permissions");
  });
});
