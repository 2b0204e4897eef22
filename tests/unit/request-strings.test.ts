import { z } from "zod";
import { describe, expect, it } from "vitest";
import { jsonValue, storableJsonCheck, storableTextCheck, text, uploadContentCheck } from "@/lib/core/schemas";
import { defineEndpoint, isRawOrJson, type EndpointSpec } from "@/lib/http/endpoint";
import { handle } from "@/lib/http/handler";
import { contentDispositionHeader } from "@/lib/http/headers";
import { API_ENDPOINTS } from "@/lib/openapi/registry";

/**
 * Every string a client can send passes the one storable-text primitive (lib/core/schemas.ts):
 * this walks the request schemas (params, query, headers, body) of every registered endpoint and
 * fails on a `z.string()`, `z.url()` or `z.unknown()` that lacks its check.
 */

type Def = { type: string; checks?: unknown[]; [key: string]: unknown };

interface Finding {
  path: string;
  kind: "unchecked string" | "unchecked free JSON" | "upload content" | "unknown schema type";
}

const defOf = (schema: unknown): Def => (schema as { _zod: { def: Def } })._zod.def;
const hasCheck = (def: Def, check: unknown) => (def.checks ?? []).includes(check);

/** Schema types without children that cannot carry a client string into PostgreSQL. */
const LEAVES = new Set(["literal", "enum", "number", "boolean", "null", "undefined", "bigint", "nan", "never", "void", "date", "transform"]);
/** Wrappers whose one child is `innerType`. */
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "nonoptional", "readonly", "catch", "success"]);

function walk(schema: unknown, path: string, findings: Finding[], ancestors = new Set<unknown>()): void {
  if (ancestors.has(schema)) return; // a recursive schema: its content is being walked already
  ancestors.add(schema);
  try {
    visit(defOf(schema), path, (value, at) => walk(value, at, findings, ancestors), findings);
  } finally {
    ancestors.delete(schema);
  }
}

function visit(def: Def, path: string, child: (schema: unknown, path: string) => void, findings: Finding[]): void {
  switch (def.type) {
    case "string":
      if (hasCheck(def, uploadContentCheck)) findings.push({ path, kind: "upload content" });
      else if (!hasCheck(def, storableTextCheck)) findings.push({ path, kind: "unchecked string" });
      return;
    case "unknown":
    case "any":
      if (!hasCheck(def, storableJsonCheck)) findings.push({ path, kind: "unchecked free JSON" });
      return;
    case "object":
      for (const [key, value] of Object.entries(def.shape as Record<string, unknown>)) child(value, `${path}.${key}`);
      if (def.catchall) child(def.catchall, `${path}.*`);
      return;
    case "array":
      return child(def.element, `${path}[]`);
    case "union":
      return (def.options as unknown[]).forEach((option, i) => child(option, `${path}|${i}`));
    case "pipe":
      child(def.in, path);
      return child(def.out, path);
    case "record":
      child(def.keyType, `${path}{key}`);
      return child(def.valueType, `${path}{value}`);
    case "tuple":
      (def.items as unknown[]).forEach((item, i) => child(item, `${path}[${i}]`));
      if (def.rest) child(def.rest, `${path}[...]`);
      return;
    case "intersection":
      child(def.left, path);
      return child(def.right, path);
    case "lazy":
      return child((def.getter as () => unknown)(), path);
    default:
      if (WRAPPERS.has(def.type)) return child(def.innerType, path);
      if (!LEAVES.has(def.type)) findings.push({ path, kind: "unknown schema type" });
  }
}

function requestSchemas(spec: EndpointSpec): [string, unknown][] {
  const parts: [string, unknown][] = [];
  if (spec.params) parts.push(["params", spec.params]);
  if (spec.query) parts.push(["query", spec.query]);
  if (spec.headers) parts.push(["headers", spec.headers]);
  if (isRawOrJson(spec.body)) parts.push(["body", spec.body.json], ["headers", spec.body.rawHeaders]);
  else if (spec.body !== undefined && spec.body !== "raw") parts.push(["body", spec.body]);
  return parts;
}

function findings(): Finding[] {
  const out: Finding[] = [];
  for (const spec of API_ENDPOINTS) {
    for (const [where, schema] of requestSchemas(spec)) walk(schema, `${spec.operationId} ${where}`, out);
  }
  return out;
}

describe("request schemas use the storable-text primitive", () => {
  it("no endpoint takes a string or free JSON without the check", () => {
    const bad = findings().filter((f) => f.kind !== "upload content");
    expect(bad).toEqual([]);
  });

  it("upload content strings (bytes, where a NUL is content) are only the documented content forms", () => {
    // These become a stored file's bytes, never a PostgreSQL text value (see uploadContentString).
    const contentPaths = findings()
      .filter((f) => f.kind === "upload content")
      .map((f) => f.path.replace(/\|\d+$/, ""));
    const allowed = /^(createAsset body\.(content|part)|uploadPart body\.part)\.(plainText|base64|buffer|data)$/;
    expect(contentPaths.length).toBeGreaterThan(0);
    expect(contentPaths.filter((p) => !allowed.test(p))).toEqual([]);
  });

  it("the walk finds what it must (so a pass means something)", () => {
    const out: Finding[] = [];
    walk(z.strictObject({ a: z.string(), b: z.array(z.url()).optional(), c: z.unknown(), d: text(), e: jsonValue() }), "probe", out);
    expect(out).toEqual([
      { path: "probe.a", kind: "unchecked string" },
      { path: "probe.b[]", kind: "unchecked string" },
      { path: "probe.c", kind: "unchecked free JSON" },
    ]);
  });
});

describe("query strings: only UTF-8 reaches the schemas", () => {
  const spec = defineEndpoint({
    operationId: "probeQuery",
    method: "GET",
    path: "/probe",
    summary: "probe",
    tag: "Test",
    auth: "none",
    query: z.strictObject({ name: text().optional(), other: text().optional() }),
    headers: z.object({ "content-disposition": contentDispositionHeader }),
    response: { description: "echo" },
    errors: [],
  });
  const handler = handle(spec, async ({ query, headers }) => ({ query, fileName: headers["content-disposition"].fileName }));
  const get = async (search: string, headers: Record<string, string> = {}) => {
    const response = await handler(new Request(`http://localhost/v1/probe?${search}`, { headers }), { params: Promise.resolve({}) });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it("decodes like URLSearchParams: UTF-8 escapes, '+', a stray '%', the last of repeated names", async () => {
    expect((await get("name=gr%C3%BC%C3%9Fe+%F0%9F%98%80&other=100%&other=50%25")).body.query).toEqual({ name: "grüße 😀", other: "50%" });
    expect((await get("name=%EF%BB%BFbom")).body.query).toEqual({ name: "\ufeffbom" });
  });

  it("refuses bytes that are not UTF-8, naming the parameter, instead of storing U+FFFD", async () => {
    for (const bad of ["%FF", "%ED%A0%80", "%C0%80", "%F4%90%80%80", "ok%E2%82"]) {
      const { status, body } = await get(`name=${bad}`);
      expect(status, bad).toBe(400);
      expect(body.message).toBe("Invalid request: query.name: must be percent-encoded UTF-8");
    }
    // A U+FFFD sent as such is valid UTF-8 and kept.
    expect((await get("name=%EF%BF%BD")).body.query).toEqual({ name: "\ufffd" });
    expect((await get("%FF=1")).body.message).toMatch(/^Invalid request: query: parameter names must be percent-encoded UTF-8/);
  });

  it("a decoded NUL reaches the schema, which names the parameter", async () => {
    expect((await get("name=a%00b")).body.message).toBe("Invalid request: query.name: must not contain NUL characters or unpaired surrogates");
  });

  it("a __proto__ parameter is an unknown field, not a prototype", async () => {
    const { status, body } = await get("__proto__=x");
    expect(status).toBe(400);
    expect(body.message).toContain('unknown field(s) "__proto__"');
  });

  it("the Content-Disposition filename must decode to storable UTF-8", async () => {
    const header = (value: string) => get("", { "content-disposition": value });
    expect((await header("attachment; filename*=UTF-8''gr%C3%BC%C3%9Fe.txt")).body.fileName).toBe("grüße.txt");
    expect((await header("attachment; filename*=UTF-8''%00x")).body.message).toContain("headers.content-disposition: the filename must not contain NUL");
    expect((await header("attachment; filename*=UTF-8''%FF.txt")).body.message).toContain("headers.content-disposition: filename* is not percent-encoded UTF-8");
    const long = `${"a".repeat(254)}😀`;
    expect((await header(`attachment; filename*=UTF-8''${encodeURIComponent(long)}`)).body.fileName).toBe("a".repeat(254));
  });
});
