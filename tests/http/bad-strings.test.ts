import { beforeAll, describe, expect, it } from "vitest";
import { db } from "@/lib/db/client";
import { expectError, expectOk, newFolder, newProject, type ApiResponse, type TestProject } from "./support";

/**
 * Issue 8, "500 on bad strings": a NUL or an unpaired surrogate in any string a client sends is a
 * 400 naming the field, never a 500 from PostgreSQL (22021 / 22P05) nor a silent U+FFFD, and
 * nothing is stored. Invalid percent-encoded UTF-8 in a query is refused the same way.
 */

const NUL = "bad\u0000name";
const LONE_HIGH = "bad\ud800name";
const LONE_LOW = "bad\udc00name";
const UNSTORABLE = "must not contain NUL characters or unpaired surrogates";
const NOT_UTF8 = "must be percent-encoded UTF-8";

let p: TestProject;
let assetId: string;

beforeAll(async () => {
  p = await newProject();
  // Judged before the answer (queue=false): "changes nothing" compares the asset before and after
  // each refused PATCH, which its judgement finishing in between would break.
  const created = await p.client.post(`/projects/${p.projectId}/assets?queue=false`, { name: "good.txt", content: { plainText: "hello", type: "text/plain" } });
  assetId = expectOk(created).id as string;
});

function createAsset(body: Record<string, unknown>) {
  return p.client.post(`/projects/${p.projectId}/assets?queue=true`, body);
}

const textContent = { plainText: "hello", type: "text/plain" };

/** A 400 request/validation-failed whose message names `field` (e.g. `body.metadata.0.value`). */
function expectRefused(res: ApiResponse, field: string, reason = UNSTORABLE) {
  const body = expectError(res, 400, "request/validation-failed");
  expect(body.message).toContain(`${field}: ${reason}`);
}

async function assetCount(): Promise<number> {
  return db().asset.count({ where: { projectId: p.projectId } });
}

describe("Create Asset refuses unstorable strings and stores nothing", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["name with NUL", { name: NUL, content: textContent }, "body.name"],
    ["name with a lone high surrogate", { name: LONE_HIGH, content: textContent }, "body.name"],
    ["name with a lone low surrogate", { name: LONE_LOW, content: textContent }, "body.name"],
    ["description with NUL", { name: "a", description: NUL, content: textContent }, "body.description"],
    ["metadata id with NUL", { name: "a", metadata: [{ id: NUL, value: 1 }], content: textContent }, "body.metadata.0.id"],
    ["metadata value with NUL", { name: "a", metadata: [{ id: "k", value: NUL }], content: textContent }, "body.metadata.0.value"],
    ["metadata value with a lone surrogate", { name: "a", metadata: [{ id: "k", value: LONE_HIGH }], content: textContent }, "body.metadata.0.value"],
    ["externalId with a lone surrogate", { name: "a", externalId: LONE_LOW, content: textContent }, "body.externalId"],
    ["externalUrl with NUL", { name: "a", externalUrl: "https://example.com/\u0000", content: textContent }, "body.externalUrl"],
    ["content type with NUL", { name: "a", content: { plainText: "x", type: "text/plain\u0000" } }, "body.content.type"],
    ["part name with NUL (variant B)", { name: NUL, part: { plainText: "x", type: "text/plain", isFinal: true } }, "body.name"],
    ["part type with NUL (variant B)", { name: "a", part: { plainText: "x", type: "text/\u0000" } }, "body.part.type"],
    ["url with NUL (variant C)", { name: "a", url: "https://example.com/\u0000" }, "body.url"],
  ];
  for (const [title, body, field] of cases) {
    it(`${title} → 400 naming ${field}`, async () => {
      const before = await assetCount();
      expectRefused(await createAsset(body), field);
      expect(await assetCount()).toBe(before);
    });
  }

  it("a NUL inside inline text content is content, not a field: it is stored as sent", async () => {
    const asset = expectOk(await createAsset({ name: "nul.txt", content: { plainText: "hello\u0000world", type: "text/plain" } }));
    expect(asset.sizeInBytes).toBe(11);
  });

  it("tags are refused on create as an unknown field (the spec's closed list), and set with PATCH", async () => {
    const before = await assetCount();
    const refused = expectError(await createAsset({ name: "t", tags: ["x"], content: textContent }), 400, "request/validation-failed");
    expect(refused.message).toContain('unknown field(s) "tags"');
    expect(await assetCount()).toBe(before);
    const patched = expectOk(await p.client.patch(`/assets/${assetId}`, { tags: ["red", "red", "blue"] }));
    expect(patched.tags).toEqual(["red", "blue"]);
  });
});

describe("PATCH asset refuses unstorable strings and changes nothing", () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["name", { name: NUL }, "body.name"],
    ["name (lone surrogate)", { name: LONE_HIGH }, "body.name"],
    ["description", { description: NUL }, "body.description"],
    ["metadata value", { metadata: [{ id: "k", value: NUL }] }, "body.metadata.0.value"],
    ["tag", { tags: ["ok", NUL] }, "body.tags.1"],
    ["tag (lone surrogate)", { tags: [LONE_LOW] }, "body.tags.0"],
    ["externalUrl", { externalUrl: "https://example.com/?q=\u0000" }, "body.externalUrl"],
  ];
  for (const [title, body, field] of cases) {
    it(`${title} → 400 naming ${field}`, async () => {
      const before = expectOk(await p.client.get(`/assets/${assetId}`));
      expectRefused(await p.client.patch(`/assets/${assetId}`, body), field);
      expect(expectOk(await p.client.get(`/assets/${assetId}`))).toEqual(before);
    });
  }
});

describe("query strings: NUL and bytes that are not UTF-8", () => {
  const upload = (query: string, headers: Record<string, string> = {}) =>
    p.client.request("POST", `/projects/${p.projectId}/assets/upload?${query}`, {
      body: Buffer.from("raw text"),
      headers: { "X-Service-Upload": "content", "Content-Type": "text/plain", ...headers },
    });

  it("?name=%00 on the raw upload → 400 naming query.name, nothing stored", async () => {
    const before = await assetCount();
    expectRefused(await upload("name=a%00b"), "query.name");
    expectRefused(await upload("description=%00"), "query.description");
    expect(await assetCount()).toBe(before);
  });

  it("percent-encoded bytes that are not UTF-8 are refused, not turned into U+FFFD", async () => {
    const before = await assetCount();
    expectRefused(await upload("name=%ED%A0%80"), "query.name", NOT_UTF8);
    expectRefused(await upload("name=a%FFb"), "query.name", NOT_UTF8);
    expectRefused(await upload("externalId=%C0%80"), "query.externalId", NOT_UTF8);
    expect(await assetCount()).toBe(before);
  });

  it("the raw query is read from the client's bytes (Next.js re-encodes it); a U+FFFD sent as such is kept", async () => {
    const asset = expectOk(await upload("queue=true&name=a%EF%BF%BDb"));
    expect(asset.name).toBe("a\ufffdb");
    // A client cannot smuggle another query past the server in the internal header.
    const spoofed = await p.client.request("POST", `/projects/${p.projectId}/assets/upload?queue=true&name=real`, {
      body: Buffer.from("text"),
      headers: { "X-Service-Upload": "content", "Content-Type": "text/plain", "X-Sieve-Raw-Query": "name=%FF" },
    });
    expect(expectOk(spoofed).name).toBe("real");
  });

  it("valid percent-encoding, '+' and a stray '%' decode as before", async () => {
    const asset = expectOk(await upload("queue=true&name=gr%C3%BC%C3%9Fe+%F0%9F%98%80+100%"));
    expect(asset.name).toBe("grüße 😀 100%");
  });

  it("?name=%00 on the multipart start → 400 naming query.name", async () => {
    const res = await p.client.request("POST", `/projects/${p.projectId}/assets/multipart-upload?name=%00`, {
      body: Buffer.from("part one"),
      headers: { "X-Service-Upload": "part", "Content-Type": "text/plain" },
    });
    expectRefused(res, "query.name");
  });

  it("a Content-Disposition filename* that decodes to NUL or is not UTF-8 → 400 naming the header", async () => {
    const before = await assetCount();
    expectRefused(await upload("queue=true", { "Content-Disposition": "attachment; filename*=UTF-8''%00x" }), "headers.content-disposition", `the filename ${UNSTORABLE}`);
    expectRefused(
      await upload("queue=true", { "Content-Disposition": "attachment; filename*=UTF-8''%ED%A0%80.txt" }),
      "headers.content-disposition",
      "filename* is not percent-encoded UTF-8",
    );
    expect(await assetCount()).toBe(before);
  });

  it("a long filename is cut at a character boundary, never inside a surrogate pair", async () => {
    const name = `${"a".repeat(254)}😀.txt`;
    const asset = expectOk(await upload("queue=true", { "Content-Disposition": `attachment; filename*=UTF-8''${encodeURIComponent(name)}` }));
    expect(asset.name).toBe("a".repeat(254));
  });

  it("search q with NUL or invalid UTF-8 → 400 naming query.q", async () => {
    expectRefused(await p.client.get(`/projects/${p.projectId}/assets/search?q=cat%00dog`), "query.q");
    expectRefused(await p.client.get(`/projects/${p.projectId}/assets/search?q=%FF`), "query.q", NOT_UTF8);
  });

  it("list filter and events cursor with NUL → 400 naming the parameter", async () => {
    expectRefused(await p.client.get(`/projects/${p.projectId}/assets/page?filter=${encodeURIComponent('name=="a\u0000"')}`), "query.filter");
    expectRefused(await p.client.get(`/projects/${p.projectId}/events?limit=10&after=%00`), "query.after");
  });
});

describe("folders and lenses", () => {
  it("folder names with NUL or a lone surrogate → 400 naming body.name, nothing stored", async () => {
    const folderId = await newFolder(p, "kept");
    const before = await db().folder.count({ where: { projectId: p.projectId } });
    expectRefused(await p.client.post(`/projects/${p.projectId}/folders`, { name: NUL }), "body.name");
    expectRefused(await p.client.post(`/projects/${p.projectId}/folders`, { name: LONE_HIGH }), "body.name");
    expectRefused(await p.client.patch(`/folders/${folderId}`, { name: NUL }), "body.name");
    expect(await db().folder.count({ where: { projectId: p.projectId } })).toBe(before);
    expect(expectOk(await p.client.get(`/folders/${folderId}`)).name).toBe("kept");
  });

  const lens = (extra: Record<string, unknown> = {}) => ({ identifier: "bad", name: "Lens", type: "image", active: true, version: 1, ...extra });
  const lensCases: [string, Record<string, unknown>, string, string?][] = [
    ["name with NUL", lens({ name: NUL }), "body.name"],
    ["name with a lone surrogate", lens({ name: LONE_HIGH }), "body.name"],
    ["description with NUL", lens({ description: NUL }), "body.description"],
    ["transform type with NUL", lens({ transforms: [{ type: "x\u0000", options: {} }] }), "body.transforms.0.type"],
    ["a string inside free options", lens({ transforms: [{ type: "custom", options: { a: [1, { b: NUL }] } }] }), "body.transforms.0.options.a.1.b"],
    ["a key inside free options", lens({ transforms: [{ type: "custom", options: { a: { [LONE_LOW]: 1 } } }] }), "body.transforms.0.options.a", `keys ${UNSTORABLE}`],
  ];
  for (const [title, body, field, reason] of lensCases) {
    it(`lens ${title} → 400 naming ${field}, nothing stored`, async () => {
      expectRefused(await p.client.request("PUT", "/lenses/bad", { json: body }), field, reason);
      expect(await db().lens.count({ where: { projectId: p.projectId } })).toBe(0);
    });
  }

  it("Ensure Lenses names the lens, and a NUL in the path identifier is refused", async () => {
    const res = await p.client.request("PUT", `/projects/${p.projectId}/lenses`, { json: { lenses: [lens({ identifier: "ok" }), lens({ name: NUL })] } });
    expectRefused(res, "body.lenses.1.name");
    expectError(await p.client.request("PUT", "/lenses/a%00b", { json: lens({ identifier: "a\u0000b" }) }), 400, "request/validation-failed");
    expect(await db().lens.count({ where: { projectId: p.projectId } })).toBe(0);
  });
});
