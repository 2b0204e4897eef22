import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineEndpoint, type EndpointSpec, type HttpMethod } from "@/lib/http/endpoint";
import { ERROR_CODES, type ErrorCode } from "@/lib/core/errors";
import { endpointOf } from "@/lib/http/handler";
import {
  buildOpenApiDocument,
  caseInsensitiveSource,
  errorCodesOf,
  generateOpenApiDocument,
  pathTemplateNames,
  type OpenApiDocument,
} from "@/lib/openapi/document";
import { API_ENDPOINTS } from "@/lib/openapi/registry";

/**
 * No OpenAPI validator is installed, so the structure is checked here: references, parameters,
 * operation ids, responses, security, component names. The coverage tests make a route without an
 * OpenAPI entry (or an `*Endpoint` export missing from the registry) fail.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
// OPTIONS is left out: routes() derives its answer (the Allow list) from the real methods.
const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"] as const;
const OPERATION_KEYS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const COMPONENT_NAME = /^[a-zA-Z0-9.\-_]+$/;

type Json = Record<string, any>;

const doc = buildOpenApiDocument();

function operations(d: OpenApiDocument): { path: string; method: string; op: Json }[] {
  return Object.entries(d.paths).flatMap(([p, item]) =>
    Object.entries(item)
      .filter(([m]) => OPERATION_KEYS.includes(m))
      .map(([method, op]) => ({ path: p, method, op })),
  );
}

/** Resolves a local JSON pointer (`#/components/schemas/Asset`); undefined when it points nowhere. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  if (ref === "#") return root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof node !== "object" || node === null || !Object.prototype.hasOwnProperty.call(node, key)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

function collectRefs(value: unknown, at: string, out: { at: string; ref: string }[] = []): { at: string; ref: string }[] {
  if (Array.isArray(value)) value.forEach((v, i) => collectRefs(v, `${at}/${i}`, out));
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === "$ref" && typeof v === "string") out.push({ at, ref: v });
      else collectRefs(v, `${at}/${k}`, out);
    }
  }
  return out;
}

const deref = (d: unknown, obj: Json): Json => (typeof obj.$ref === "string" ? (resolvePointer(d, obj.$ref) as Json) : obj);

/** Structural OpenAPI 3.1 checks; returns the problems found. */
function structuralProblems(d: OpenApiDocument): string[] {
  const problems: string[] = [];
  const fail = (msg: string) => problems.push(msg);

  if (d.openapi !== "3.1.0") fail(`openapi is ${d.openapi}`);
  if (!d.info?.title || !d.info?.version) fail("info.title and info.version are required");
  if (!Array.isArray(d.servers) || d.servers.length === 0 || d.servers.some((s) => typeof s.url !== "string")) fail("servers");

  for (const { at, ref } of collectRefs(d, "#")) {
    if (resolvePointer(d, ref) === undefined) fail(`unresolved $ref ${ref} at ${at}`);
  }
  for (const [kind, entries] of Object.entries(d.components)) {
    for (const name of Object.keys(entries)) if (!COMPONENT_NAME.test(name)) fail(`component name ${kind}/${name}`);
  }
  for (const [name, header] of Object.entries(d.components.headers)) {
    if (!header.schema && !header.content) fail(`header ${name} has neither schema nor content`);
  }

  const tagNames = new Set(d.tags.map((t) => t.name));
  const schemes = new Set(Object.keys(d.components.securitySchemes));
  const operationIds = new Map<string, string>();
  for (const p of Object.keys(d.paths)) {
    if (!p.startsWith("/") || (p.length > 1 && p.endsWith("/"))) fail(`path ${p} must start with / and not end with /`);
  }
  for (const { path: p, method, op } of operations(d)) {
    const where = `${method.toUpperCase()} ${p}`;
    if (typeof op.operationId !== "string" || op.operationId === "") fail(`${where}: operationId`);
    else if (operationIds.has(op.operationId)) fail(`${where}: operationId ${op.operationId} also used by ${operationIds.get(op.operationId)}`);
    else operationIds.set(op.operationId, where);

    for (const tag of op.tags ?? []) if (!tagNames.has(tag)) fail(`${where}: tag ${tag} not declared`);
    for (const requirement of op.security ?? []) {
      for (const name of Object.keys(requirement)) if (!schemes.has(name)) fail(`${where}: security scheme ${name}`);
    }

    const params = (op.parameters ?? []).map((param: Json) => deref(d, param));
    const seen = new Set<string>();
    for (const param of params) {
      if (!param || typeof param.name !== "string" || !["query", "header", "path", "cookie"].includes(param.in)) {
        fail(`${where}: malformed parameter ${JSON.stringify(param)}`);
        continue;
      }
      const key = `${param.in}:${param.in === "header" ? param.name.toLowerCase() : param.name}`;
      if (seen.has(key)) fail(`${where}: duplicate parameter ${key}`);
      seen.add(key);
      if (!("schema" in param) && !("content" in param)) fail(`${where}: parameter ${param.name} has no schema`);
      if (param.in === "path" && param.required !== true) fail(`${where}: path parameter ${param.name} must be required`);
      if (param.in === "path" && !pathTemplateNames(p).includes(param.name)) fail(`${where}: path parameter ${param.name} not in the path`);
    }
    for (const name of pathTemplateNames(p)) {
      if (!params.some((param: Json) => param?.in === "path" && param.name === name)) fail(`${where}: no parameter for {${name}}`);
    }

    if (op.requestBody) {
      const content = deref(d, op.requestBody).content;
      if (!content || Object.keys(content).length === 0) fail(`${where}: requestBody without content`);
    }

    const responses = op.responses ?? {};
    if (Object.keys(responses).length === 0) fail(`${where}: no responses`);
    if (!Object.keys(responses).some((s) => /^2\d\d$/.test(s))) fail(`${where}: no 2xx response`);
    for (const [status, response] of Object.entries<Json>(responses)) {
      if (!/^([1-5]\d\d|[1-5]XX|default)$/.test(status)) fail(`${where}: response key ${status}`);
      const r = deref(d, response);
      if (typeof r?.description !== "string") fail(`${where}: response ${status} has no description`);
      for (const [mediaType, media] of Object.entries<Json>(r?.content ?? {})) {
        if (!/^[\w*.+-]+\/[\w*.+-]+$/.test(mediaType)) fail(`${where}: media type ${mediaType}`);
        if (media.schema !== undefined && (typeof media.schema !== "object" || media.schema === null)) fail(`${where}: ${status} schema`);
      }
    }
  }
  return problems;
}

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1.0 with version 1.0.0 and plain JSON", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info).toMatchObject({ title: "Sieve API", version: "1.0.0" });
    expect(doc.servers).toEqual([{ url: "/v1" }]);
    expect(JSON.parse(JSON.stringify(doc))).toEqual(doc);
  });

  it("passes the structural checks", () => {
    expect(structuralProblems(doc)).toEqual([]);
  });

  it("has one operation per endpoint spec, with unique operation ids", () => {
    expect(operations(doc)).toHaveLength(API_ENDPOINTS.length);
    const ids = API_ENDPOINTS.map((e) => e.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const routes = API_ENDPOINTS.map((e) => `${e.method} ${e.path}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it("is cached and frozen", () => {
    expect(buildOpenApiDocument()).toBe(doc);
    expect(Object.isFrozen(doc.paths["/health-check"]?.get)).toBe(true);
    expect(buildOpenApiDocument("https://media.example.com/v1").servers).toEqual([{ url: "https://media.example.com/v1" }]);
  });

  it("declares params exactly for the path template of every endpoint", () => {
    for (const spec of API_ENDPOINTS) {
      const declared = spec.params instanceof z.ZodObject ? Object.keys(spec.params.shape).sort() : [];
      expect(declared, spec.operationId).toEqual(pathTemplateNames(spec.path).sort());
    }
  });

  it("lists only error codes that exist, and documents every code once at the root", () => {
    for (const spec of API_ENDPOINTS) {
      for (const code of spec.errors) expect(Object.keys(ERROR_CODES), `${spec.operationId}: ${code}`).toContain(code);
    }
    expect(doc["x-error-codes"].map((e) => e.code)).toEqual(Object.keys(ERROR_CODES));
    for (const entry of doc["x-error-codes"]) expect(entry.status).toBe(ERROR_CODES[entry.code].status);
  });

  it("has the shared Error schema, one error response per status, and the documented headers", () => {
    expect(doc.components.schemas.Error).toMatchObject({
      type: "object",
      required: ["message", "code", "traceId"],
      properties: { message: { type: "string" }, code: { type: "string" }, traceId: { type: "string" } },
    });
    for (const spec of API_ENDPOINTS) {
      const op = doc.paths[spec.path]?.[spec.method.toLowerCase()] as Json;
      const codes = errorCodesOf(spec);
      expect(op["x-error-codes"]).toEqual(codes);
      for (const code of spec.errors) expect(codes).toContain(code);
      const statuses = new Set(codes.map((c) => ERROR_CODES[c].status));
      const expected = [String(spec.response.status ?? 200), ...[...statuses].map(String)].sort();
      expect(Object.keys(op.responses).sort(), spec.operationId).toEqual(expected);
      for (const [status, response] of Object.entries<Json>(op.responses)) {
        expect(response.headers["X-Request-Id"], `${spec.operationId} ${status}`).toBeDefined();
        if (spec.idempotent) expect(response.headers["Idempotent-Replayed"], `${spec.operationId} ${status}`).toBeDefined();
        else expect(response.headers["Idempotent-Replayed"]).toBeUndefined();
        if (status === "429") expect(response.headers["Retry-After"]).toEqual({ $ref: "#/components/headers/Retry-After" });
        if (Number(status) >= 400) {
          const media = response.content["application/json"];
          expect(media.schema).toEqual({ $ref: "#/components/schemas/Error" });
          const statusCodes = codes.filter((c) => ERROR_CODES[c].status === Number(status));
          expect(Object.keys(media.examples)).toEqual(statusCodes);
          for (const code of statusCodes) {
            expect(response.description).toContain(`\`${code}\``);
            expect((resolvePointer(doc, media.examples[code].$ref) as Json).value).toMatchObject({ code });
          }
        }
      }
    }
  });

  it("applies the API key scheme with the permission named, and no security without auth", () => {
    expect(doc.components.securitySchemes.ApiKey).toEqual({ type: "apiKey", in: "header", name: "X-Api-Key", description: expect.any(String) });
    for (const spec of API_ENDPOINTS) {
      const op = doc.paths[spec.path]?.[spec.method.toLowerCase()] as Json;
      if (spec.auth === "none") {
        expect(op.security, spec.operationId).toEqual([]);
        expect(op.responses["401"]).toBeUndefined();
      } else {
        expect(op.security, spec.operationId).toEqual([{ ApiKey: [] }]);
        if (spec.permission) expect(op.description).toContain(`Requires permission \`${spec.permission}\`.`);
      }
    }
    expect(doc.paths["/health-check"]?.get?.security).toEqual([]);
  });

  it("documents query parameters by their input form (coerce, default, transform)", () => {
    const list = doc.paths["/projects/{projectId}/assets/page"]?.get as Json;
    const byName = Object.fromEntries(list.parameters.filter((p: Json) => p.name).map((p: Json) => [p.name, p]));
    expect(byName.projectId).toMatchObject({ in: "path", required: true, schema: { type: "string" } });
    expect(byName.pageIndex).toMatchObject({ in: "query", required: false, schema: { type: "integer", minimum: 0, default: 0 } });
    expect(byName.pageSize).toMatchObject({ in: "query", required: false, schema: { type: "integer", minimum: 1, maximum: 100, default: 20 } });
    expect(byName.filter).toMatchObject({ in: "query", required: false, description: expect.any(String), schema: { type: "string" } });
    const create = doc.paths["/projects/{projectId}/assets"]?.post as Json;
    const queue = create.parameters.find((p: Json) => p.name === "queue");
    expect(queue).toMatchObject({ in: "query", required: false, schema: { type: "string", enum: expect.arrayContaining(["true", "false"]) } });
    // Case-insensitive UUIDs stay case-insensitive.
    expect(byName.projectId.schema.pattern).toContain("[0-9a-fA-F]");
  });

  it("documents JSON bodies, raw bodies, and request headers", () => {
    const create = doc.paths["/projects/{projectId}/assets"]?.post as Json;
    expect(create.requestBody.required).toBe(true);
    expect(create.requestBody.content["application/json"].schema).toMatchObject({ type: "object", required: ["name"] });
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: "Idempotency-Key", in: "header", required: false }));

    const upload = doc.paths["/projects/{projectId}/assets/upload"]?.post as Json;
    expect(upload.requestBody.required).toBe(true);
    expect(upload.requestBody.content).toEqual({
      "application/octet-stream": { schema: { type: "string", format: "binary" } },
      "*/*": { schema: { type: "string", format: "binary" } },
    });
    expect(upload.parameters).toContainEqual(expect.objectContaining({ name: "X-Service-Upload", in: "header", required: true }));
    // OpenAPI ignores a Content-Type header parameter; it is described on the body instead.
    expect(upload.parameters.some((p: Json) => p.name?.toLowerCase() === "content-type")).toBe(false);
    expect(upload.requestBody.description).toContain("Content-Type");

    const health = doc.paths["/health-check"]?.get as Json;
    expect(health.responses["200"].content["text/plain"].schema).toEqual({ type: "string", const: "OK" });
    const asset = doc.paths["/assets/{assetId}"]?.get as Json;
    expect(asset.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Asset" });
  });
});

describe("schema conversion", () => {
  it("does not throw on transforms, refinements, coercion, recursion and clashing ids", () => {
    type Node = { name: string; children: Node[] };
    const node: z.ZodType<Node> = z.lazy(() => z.object({ name: z.string(), children: z.array(node) }));
    const thingOut = z.object({ id: z.string(), at: z.date() }).meta({ id: "Thing" });
    const thingIn = z.object({ id: z.string().transform((s) => s.trim()), n: z.number().default(1) }).meta({ id: "Thing" });
    const spec = defineEndpoint({
      operationId: "testOp",
      method: "POST",
      path: "/things/{thingId}",
      summary: "test",
      tag: "Test",
      auth: "apiKey",
      permission: "assets:write",
      params: z.object({ thingId: z.string().describe("The thing") }),
      query: z.object({ n: z.coerce.number().int().default(3), flag: z.enum(["true", "false"]).transform((v) => v === "true").optional() }),
      body: z.object({ tree: node, thing: thingIn }).optional(),
      response: { description: "ok", schema: z.object({ thing: thingOut, tree: node, when: z.date().transform((d) => d.getTime()) }) },
      errors: ["folder/not-found"],
      idempotent: true,
    });
    const d = generateOpenApiDocument([spec as EndpointSpec, API_ENDPOINTS[0] as EndpointSpec]);
    expect(structuralProblems(d)).toEqual([]);
    const op = d.paths["/things/{thingId}"]?.post as Json;
    expect(op.requestBody.required).toBe(false);
    expect(op.parameters[0]).toMatchObject({ name: "thingId", in: "path", required: true, description: "The thing" });
    expect(op.parameters[1]).toMatchObject({ name: "n", required: false, schema: { type: "integer", default: 3 } });
    expect(op.parameters[2]).toMatchObject({ name: "flag", required: false, schema: { enum: ["true", "false"] } });
    // Both "Thing" schemas are kept, under distinct names.
    const names = Object.keys(d.components.schemas);
    expect(names).toContain("Thing");
    expect(names.filter((n) => n.startsWith("Thing"))).toHaveLength(2);
    // Codes the wrapper adds for an authenticated, idempotent endpoint with a body.
    const codes: ErrorCode[] = op["x-error-codes"];
    for (const code of ["auth/missing-token", "auth/insufficient-permissions", "rate-limit/exceeded", "idempotency/key-reused", "request/malformed-json", "folder/not-found", "internal/unexpected"] as const) {
      expect(codes).toContain(code);
    }
  });

  it("makes case-insensitive patterns match both cases", () => {
    expect(caseInsensitiveSource("^[0-9a-f]{8}$")).toBe("^[0-9a-fA-F]{8}$");
    expect(caseInsensitiveSource("^ab\\d[^x]$")).toBe("^[aA][bB]\\d[^xX]$");
    expect(caseInsensitiveSource("^[^/\\\\\\u0000-\\u001f]+$")).toBe("^[^/\\\\\\u0000-\\u001f]+$");
    expect(caseInsensitiveSource("(?<name>a)")).toBeUndefined();
    const re = new RegExp(caseInsensitiveSource("^[0-9a-f]{8}-x$") as string);
    expect(re.test("ABCDEF01-X")).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Coverage: every route handler is in the registry, and every registered endpoint is served.

interface RouteFile {
  file: string;
  apiPath: string;
}

function findRouteFiles(dir: string, segments: string[] = []): RouteFile[] {
  const out: RouteFile[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      // Catch-alls are the JSON 404 for unknown paths; private folders (_x) are not routes.
      if (entry.name.startsWith("[...") || entry.name.startsWith("[[...") || entry.name.startsWith("_")) continue;
      out.push(...findRouteFiles(path.join(dir, entry.name), [...segments, entry.name]));
    } else if (/^route\.(ts|tsx|js|mjs)$/.test(entry.name)) {
      const apiSegments = segments
        .filter((s) => !/^\(.*\)$/.test(s)) // route groups do not appear in the URL
        .map((s) => (s.startsWith("[") && s.endsWith("]") ? `{${s.slice(1, -1)}}` : s));
      out.push({ file: path.join(dir, entry.name), apiPath: `/${apiSegments.join("/")}` });
    }
  }
  return out;
}

function findEndpointModules(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "generated" && entry.name !== "node_modules") out.push(...findEndpointModules(full));
    } else if (/^(.*-)?endpoints\.ts$/.test(entry.name)) out.push(full);
  }
  return out;
}

const isEndpointSpec = (value: unknown): value is EndpointSpec =>
  typeof value === "object" && value !== null && "operationId" in value && "method" in value && "path" in value;

/** A handler without a spec is either routes()' JSON 405 filler or a hand-written handler. */
async function isMethodNotAllowedFiller(handler: (req: Request, ctx: unknown) => Promise<Response>, method: string) {
  const response = await handler(new Request(`http://localhost/v1/_coverage-probe`, { method }), { params: Promise.resolve({}) });
  if (response.status !== 405) return false;
  const body = (await response.json()) as { code?: string };
  return body.code === "request/method-not-allowed";
}

describe("OpenAPI coverage", () => {
  const routeFiles = findRouteFiles(path.join(ROOT, "app", "v1"));
  const registered = new Set(API_ENDPOINTS.map((e) => `${e.method} ${e.path}`));

  it("finds the route files", () => {
    expect(routeFiles.map((r) => r.apiPath)).toContain("/health-check");
    expect(routeFiles.map((r) => r.apiPath)).toContain("/openapi.json");
  });

  it("has an OpenAPI entry for every route handler under app/v1", async () => {
    const missing: string[] = [];
    const served = new Set<EndpointSpec>();
    for (const { file, apiPath } of routeFiles) {
      const mod = (await import(/* @vite-ignore */ file)) as Record<string, unknown>;
      for (const method of HTTP_METHODS) {
        const handler = mod[method];
        if (typeof handler !== "function") continue;
        const spec = endpointOf(handler);
        const where = `${method} ${apiPath} (${path.relative(ROOT, file)})`;
        if (spec) {
          served.add(spec);
          if (spec.method !== method || spec.path !== apiPath) {
            missing.push(`${where} is built from ${spec.operationId}, declared as ${spec.method} ${spec.path}`);
          }
          if (!API_ENDPOINTS.includes(spec)) missing.push(`${where}: ${spec.operationId} is not in lib/openapi/registry.ts`);
          continue;
        }
        if (registered.has(`${method} ${apiPath}`)) continue;
        if (await isMethodNotAllowedFiller(handler as never, method)) continue;
        missing.push(`${where} has no endpoint in lib/openapi/registry.ts`);
      }
    }
    expect(missing).toEqual([]);
    const unserved = API_ENDPOINTS.filter((e) => !served.has(e)).map((e) => `${e.method} ${e.path} (${e.operationId})`);
    expect(unserved, "registered endpoints without a route handler built by handle()").toEqual([]);
  });

  it("registers every *Endpoint exported by an endpoint module", async () => {
    const files = findEndpointModules(path.join(ROOT, "lib"));
    expect(files.map((f) => path.relative(ROOT, f))).toContain(path.join("lib", "assets", "endpoints.ts"));
    const missing: string[] = [];
    for (const file of files) {
      const mod = (await import(/* @vite-ignore */ file)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(mod)) {
        if (name.endsWith("Endpoint") && isEndpointSpec(value) && !API_ENDPOINTS.includes(value)) {
          missing.push(`${name} (${path.relative(ROOT, file)})`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it("serves the document at GET /v1/openapi.json and answers other methods with a JSON 405", async () => {
    const route = (await import("@/app/v1/openapi.json/route")) as Record<HttpMethod, (req: Request, ctx: unknown) => Promise<Response>>;
    const ctx = { params: Promise.resolve({}) };
    const response = await route.GET(new Request("http://localhost/v1/openapi.json"), ctx);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.headers.get("x-request-id")).toBeTruthy();
    expect(await response.json()).toEqual(doc);
    const post = await route.POST(new Request("http://localhost/v1/openapi.json", { method: "POST" }), ctx);
    expect(post.status).toBe(405);
    expect(await post.json()).toMatchObject({ code: "request/method-not-allowed", traceId: expect.any(String) });
  });
});

describe("docs/api.md", () => {
  it("lists every error code with its status", () => {
    const guide = readFileSync(path.join(ROOT, "docs", "api.md"), "utf8");
    const missing = (Object.keys(ERROR_CODES) as ErrorCode[]).filter(
      (code) => !new RegExp(`\\|\\s*${ERROR_CODES[code].status}\\s*\\|\\s*\`${code.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\``).test(guide),
    );
    expect(missing).toEqual([]);
  });

  it("lists every endpoint with its permission", () => {
    const guide = readFileSync(path.join(ROOT, "docs", "api.md"), "utf8");
    const missing = API_ENDPOINTS.map((e) => `| ${e.method} | ${e.path} | ${e.auth === "none" ? "none" : (e.permission ?? "any key")} |`).filter(
      (row) => !guide.includes(row),
    );
    expect(missing, "rows missing from the permission table of docs/api.md").toEqual([]);
  });
});
