import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, type ErrorCode } from "@/lib/core/errors";
import type { EndpointSpec, HttpMethod } from "@/lib/http/endpoint";
import { endpointOf } from "@/lib/http/handler";
import { buildOpenApiDocument } from "@/lib/openapi/document";
import { API_ENDPOINTS } from "@/lib/openapi/registry";

/**
 * Every route handler (app/v1/**\/route.ts) is in the registry, every registered endpoint is
 * served, and docs/api.md lists every code and endpoint.
 */

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
// OPTIONS is left out: routes() derives its answer (the Allow list) from the real methods.
const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"] as const;

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

  // The portal's session routes (/api/portal) are the browser's, not the API's: not in the document.
  it("registers every *Endpoint exported by an endpoint module", async () => {
    const files = findEndpointModules(path.join(ROOT, "lib"));
    expect(files.map((f) => path.relative(ROOT, f))).toContain(path.join("lib", "assets", "endpoints.ts"));
    const missing: string[] = [];
    for (const file of files) {
      const mod = (await import(/* @vite-ignore */ file)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(mod)) {
        if (name.endsWith("Endpoint") && isEndpointSpec(value) && value.auth !== "session" && !API_ENDPOINTS.includes(value)) {
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
    expect(await response.json()).toEqual(buildOpenApiDocument());
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
