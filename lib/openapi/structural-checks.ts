import type { OpenApiDocument } from "@/lib/openapi/document";
import { pathTemplateNames } from "@/lib/openapi/error-codes";

/**
 * No OpenAPI validator is installed, so the tests check the structure here: references, parameters,
 * operation ids, responses, security, component names.
 */

const OPERATION_KEYS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const COMPONENT_NAME = /^[a-zA-Z0-9.\-_]+$/;

// The checks walk arbitrary JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>;

export function operations(d: OpenApiDocument): { path: string; method: string; op: Json }[] {
  return Object.entries(d.paths).flatMap(([p, item]) =>
    Object.entries(item)
      .filter(([m]) => OPERATION_KEYS.includes(m))
      .map(([method, op]) => ({ path: p, method, op })),
  );
}

/** Resolves a local JSON pointer (`#/components/schemas/Asset`); undefined when it points nowhere. */
export function resolvePointer(root: unknown, ref: string): unknown {
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
export function structuralProblems(d: OpenApiDocument): string[] {
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
