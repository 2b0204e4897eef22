import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { expectError, newKey, newProject, type TestProject, expectOk } from "./support";

type SearchPage = { items: { asset: Record<string, any>; rank: number }[]; total: number; hasMore: boolean };

/** GET /projects/{projectId}/assets/search: full-text search with ranking. */

async function createText(p: TestProject, name: string, extra: Record<string, unknown> = {}) {
  const res = await p.client.post(`/projects/${p.projectId}/assets`, { name, content: { plainText: `body of ${name}`, type: "text/plain" }, ...extra });
  if (res.status !== 200) throw new Error(`create failed: ${res.status} ${res.text}`);
  return res.body as Record<string, any>;
}

async function search(p: TestProject, params: Record<string, string | number | boolean>) {
  const qs = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
  return p.client.get(`/projects/${p.projectId}/assets/search?${qs}`);
}

async function searchIds(p: TestProject, q: string, extra: Record<string, string | number | boolean> = {}) {
  return expectOk<SearchPage>(await search(p, { q, ...extra })).items.map((i) => i.asset.id as string);
}

describe("search assets", () => {
  let p: TestProject;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    p = await newProject();
    ids.sunset = (await createText(p, "sunset-over-harbour.txt")).id;
    ids.dog = (await createText(p, "IMG_2041.txt", { description: "The dog runs along the beach at dawn" })).id;
    ids.tagged = (await createText(p, "untitled.txt")).id;
    expect((await p.client.patch(`/assets/${ids.tagged}`, { tags: ["invoice", "quarterly-report"] })).status).toBe(200);
    ids.meta = (await createText(p, "contract.txt", { metadata: [{ id: "customerCode", value: "ZX81-ACME" }, { id: "region", value: "lisbon" }] })).id;
    // Ranking pair: "zebra" in the name of one and the description of the other.
    ids.zebraDesc = (await createText(p, "animal photo.txt", { description: "a zebra crossing the road" })).id;
    ids.zebraName = (await createText(p, "zebra.txt")).id;
  });

  it("finds a keyword in the name and returns {items: [{asset, rank}], total, hasMore}", async () => {
    const page = expectOk<SearchPage>(await search(p, { q: "harbour" }));
    expect(page.total).toBe(1);
    expect(page.hasMore).toBe(false);
    expect(page.items).toHaveLength(1);
    const [hit] = page.items as [{ asset: Record<string, any>; rank: number }];
    expect(hit.asset.id).toBe(ids.sunset);
    expect(hit.asset.name).toBe("sunset-over-harbour.txt");
    expect(hit.asset.projectId).toBe(p.projectId);
    expect(hit.rank).toBeGreaterThan(0);
    expect(hit.rank).toBeLessThanOrEqual(1);
    expect(await searchIds(p, "sunset-over-harbour.txt")).toEqual([ids.sunset]);
    expect(await searchIds(p, "Harbours")).toEqual([ids.sunset]);
    expect(await searchIds(p, "harb")).toEqual([]);
  });

  it("matches natural-language descriptions by stems", async () => {
    expect(await searchIds(p, "running dogs")).toEqual([ids.dog]);
    expect(await searchIds(p, "a dog running on a beach")).toEqual([ids.dog]);
    expect(await searchIds(p, "img_2041")).toEqual([ids.dog]);
    expect(await searchIds(p, "IMG_2041.txt")).toEqual([ids.dog]);
    expect(await searchIds(p, "dog -beach")).toEqual([]);
    expect(new Set(await searchIds(p, "dawn or harbour"))).toEqual(new Set([ids.dog, ids.sunset]));
  });

  it("ranks assets matching some of a description (natural mode); keywords mode needs every word", async () => {
    const natural = await searchIds(p, "dog in the harbour");
    expect(new Set(natural)).toEqual(new Set([ids.dog, ids.sunset]));
    expect(await searchIds(p, "dog harbour", { mode: "keywords" })).toEqual([]);
    expect(await searchIds(p, "dog dawn", { mode: "keywords" })).toEqual([ids.dog]);
    expect(new Set(await searchIds(p, "dawn or harbour", { mode: "keywords" }))).toEqual(new Set([ids.dog, ids.sunset]));
    expectError(await search(p, { q: "dog", mode: "fuzzy" }), 400, "request/validation-failed");
  });

  it("matches tags set with PATCH", async () => {
    expect(await searchIds(p, "invoice")).toEqual([ids.tagged]);
    expect(await searchIds(p, "quarterly report")).toEqual([ids.tagged]);
  });

  it("matches metadata values, not metadata ids", async () => {
    expect(await searchIds(p, "zx81-acme")).toEqual([ids.meta]);
    expect(await searchIds(p, "lisbon")).toEqual([ids.meta]);
    expect(await searchIds(p, "customerCode")).toEqual([]);
  });

  it("ranks a name match above a description match", async () => {
    const page = expectOk<SearchPage>(await search(p, { q: "zebra" }));
    expect(page.items.map((i) => i.asset.id)).toEqual([ids.zebraName, ids.zebraDesc]);
    const [first, second] = page.items.map((i) => i.rank);
    expect(first).toBeGreaterThan(second as number);
  });

  it("sees changes at once (PATCH name)", async () => {
    const a = await createText(p, "before-rename.txt");
    expect(await searchIds(p, "kingfisher")).toEqual([]);
    expect((await p.client.patch(`/assets/${a.id}`, { name: "kingfisher.txt" })).status).toBe(200);
    expect(await searchIds(p, "kingfisher")).toEqual([a.id]);
  });

  it("filters by type", async () => {
    expect(await searchIds(p, "harbour", { type: "plaintext-document" })).toEqual([ids.sunset]);
    expect(await searchIds(p, "harbour", { type: "image" })).toEqual([]);
  });

  it("searches extracted text and labels of children unless includeChildren=false", async () => {
    const parent = await createText(p, "scan.txt");
    const child = await db().asset.create({
      data: {
        projectId: p.projectId, parentId: parent.id, name: "page-1", type: "image", status: "pending",
        extractedText: "Minutes of the annual shareholders meeting", labels: ["lighthouse", "seagull"],
      },
    });
    expect(await searchIds(p, "shareholder meetings")).toEqual([child.id]);
    expect(await searchIds(p, "seagulls")).toEqual([child.id]);
    const page = expectOk<SearchPage>(await search(p, { q: "lighthouse" }));
    expect(page.items[0]?.asset.parentId).toBe(parent.id);
    expect(await searchIds(p, "lighthouse", { includeChildren: false })).toEqual([]);
  });

  it("returns nothing for a query of stop words or punctuation only", async () => {
    const page = expectOk<SearchPage>(await search(p, { q: "the !!!" }));
    expect(page).toEqual({ items: [], total: 0, hasMore: false });
  });

  it("never returns another project's assets", async () => {
    const other = await newProject();
    const theirs = await createText(other, "harbour-secret.txt");
    expect(await searchIds(p, "harbour")).toEqual([ids.sunset]);
    expect(await searchIds(other, "harbour")).toEqual([theirs.id]);
  });

  it("paginates with a stable order and no overlap", async () => {
    const q = await newProject();
    const created: string[] = [];
    for (let i = 0; i < 5; i++) created.push((await createText(q, `walrus ${i}.txt`)).id);
    const seen: string[] = [];
    for (let pageIndex = 0; pageIndex < 3; pageIndex++) {
      const page = expectOk<SearchPage>(await search(q, { q: "walrus", pageSize: 2, pageIndex }));
      expect(page.total).toBe(5);
      expect(page.hasMore).toBe(pageIndex < 2);
      expect(page.items).toHaveLength(pageIndex < 2 ? 2 : 1);
      seen.push(...page.items.map((i) => i.asset.id as string));
    }
    // Equal ranks: newest first.
    expect(seen).toEqual([...created].reverse());
    const beyond = expectOk<SearchPage>(await search(q, { q: "walrus", pageSize: 2, pageIndex: 7 }));
    expect(beyond).toEqual({ items: [], total: 5, hasMore: false });
  });

  it("validates the query", async () => {
    expectError(await search(p, { q: "" }), 400, "request/validation-failed");
    expectError(await search(p, { q: "   " }), 400, "request/validation-failed");
    expectError(await p.client.get(`/projects/${p.projectId}/assets/search`), 400, "request/validation-failed");
    expectError(await search(p, { q: "x".repeat(501) }), 400, "request/validation-failed");
    expectError(await search(p, { q: "dog", pageSize: 0 }), 400, "request/validation-failed");
    expectError(await search(p, { q: "dog", pageSize: 101 }), 400, "request/validation-failed");
    expectError(await search(p, { q: "dog", type: "spreadsheet" }), 400, "request/validation-failed");
    expectError(await search(p, { q: "dog", sort: "name" }), 400, "request/validation-failed");
    expect((await search(p, { q: "x".repeat(500) })).status).toBe(200);
  });

  it("needs assets:read and the key's own project", async () => {
    const writer = await newKey(p.projectId, ["assets:write"]);
    expectError(await writer.client.get(`/projects/${p.projectId}/assets/search?q=dog`), 403, "auth/insufficient-permissions");
    const reader = await newKey(p.projectId, ["assets:read"]);
    expect((await reader.client.get(`/projects/${p.projectId}/assets/search?q=dog`)).status).toBe(200);
    const other = await newProject();
    expectError(await other.client.get(`/projects/${p.projectId}/assets/search?q=dog`), 403, "auth/project-mismatch");
    expectError(await p.client.request("POST", `/projects/${p.projectId}/assets/search?q=dog`), 405, "request/method-not-allowed");
  });
});
