import { beforeAll, describe, expect, it } from "vitest";
import { ApiClient, expectError, expectOk, newKey, newProject, waitForDecision, newFolder, type TestProject } from "./support";
import { NO_SUCH_ID, createText, createPng, insertChild } from "./assets-manage-support";

/**
 * Listing assets: pagination, sorting and filters of GET /projects/:id/assets/page.
 * Helpers and their conventions (queue=false uploads): assets-manage-support.ts.
 */

let other: TestProject;

beforeAll(async () => {
  other = await newProject();
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
