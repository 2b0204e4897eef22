import { z } from "zod";
import type { EndpointSpec } from "@/lib/http/endpoint";
import { ERROR_CODES, type ErrorCode } from "@/lib/core/errors";
import { API_ENDPOINTS } from "@/lib/openapi/registry";

/**
 * The OpenAPI 3.1 document, generated only from the endpoint specs (lib/openapi/registry.ts) with
 * zod 4's native `z.toJSONSchema` (JSON Schema draft 2020-12, the dialect OpenAPI 3.1 uses):
 * request schemas in `input` mode (what a client sends: defaults make a field optional, coerced
 * query numbers are numbers, transforms show their input), response schemas in `output` mode.
 * Schemas carrying a zod `id` (`.meta({ id: "Asset" })`) become `components.schemas` entries.
 */

export const OPENAPI_VERSION = "3.1.0";
export const API_VERSION = "1.0.0";
/** Relative to the document's own URL (`/v1/openapi.json`), so it is right behind any host or proxy. */
export const DEFAULT_SERVER_URL = "/v1";

type JsonObject = { [key: string]: unknown };

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  servers: { url: string; description?: string }[];
  tags: { name: string }[];
  paths: Record<string, Record<string, JsonObject>>;
  components: {
    schemas: Record<string, JsonObject>;
    securitySchemes: Record<string, JsonObject>;
    headers: Record<string, JsonObject>;
    examples: Record<string, JsonObject>;
  };
  "x-error-codes": { code: ErrorCode; status: number; message: string }[];
}

let cached: OpenApiDocument | undefined;

/**
 * The document for all registered endpoints. The one the API serves (relative server URL) is built
 * once and frozen, since every request shares it; other server URLs get a fresh document.
 */
export function buildOpenApiDocument(serverUrl: string = DEFAULT_SERVER_URL): OpenApiDocument {
  if (serverUrl !== DEFAULT_SERVER_URL) return generateOpenApiDocument(API_ENDPOINTS, serverUrl);
  cached ??= deepFreeze(generateOpenApiDocument(API_ENDPOINTS, serverUrl));
  return cached;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

const ERROR_SCHEMA: JsonObject = {
  type: "object",
  description: "The body of every error response.",
  properties: {
    message: { type: "string", description: "Human-readable message." },
    code: { type: "string", description: "Machine-readable code; clients handle errors by this value (see x-error-codes)." },
    traceId: { type: "string", description: "Identifies the request; equals the X-Request-Id response header." },
  },
  required: ["message", "code", "traceId"],
  additionalProperties: false,
};

const HEADERS: Record<string, JsonObject> = {
  "X-Request-Id": {
    description: "A UUID generated for each request; also the error body's traceId.",
    schema: { type: "string" },
  },
  "Idempotent-Replayed": {
    description: "`true` when this is the stored response of an earlier request with the same Idempotency-Key.",
    schema: { type: "string", const: "true" },
  },
  "Retry-After": {
    description: "Seconds to wait before retrying.",
    schema: { type: "integer", minimum: 1 },
  },
  "X-RateLimit-Limit": {
    description: "Requests per second allowed for this API key.",
    schema: { type: "integer", minimum: 0 },
  },
  "X-RateLimit-Remaining": {
    description: "Requests left in the key's bucket (0 on a 429).",
    schema: { type: "integer", minimum: 0 },
  },
};


/** Raw request bodies: any bytes. `format: binary` is what generators and Swagger UI understand. */
const BINARY_SCHEMA: JsonObject = { type: "string", format: "binary" };

/** OpenAPI ignores header parameters with these names; they are described on the request body instead. */
const RESERVED_HEADERS = new Set(["accept", "content-type", "authorization"]);

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });

export function generateOpenApiDocument(endpoints: readonly EndpointSpec[], serverUrl: string = DEFAULT_SERVER_URL): OpenApiDocument {
  const schemas = new SchemaCollector({ Error: ERROR_SCHEMA });
  const paths: OpenApiDocument["paths"] = {};
  const tags: string[] = [];
  for (const spec of endpoints) {
    const item = (paths[spec.path] ??= {});
    const method = spec.method.toLowerCase();
    if (item[method]) throw new Error(`OpenAPI: ${spec.method} ${spec.path} is declared twice (${spec.operationId}).`);
    item[method] = operation(spec, schemas);
    if (!tags.includes(spec.tag)) tags.push(spec.tag);
  }
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: "Sieve API",
      version: API_VERSION,
      description:
        "Media moderation and delivery. Authenticate with a project API key in the `X-Api-Key` header. " +
        "Every error response has the body `{message, code, traceId}`; `x-error-codes` lists all codes.",
    },
    servers: [{ url: serverUrl }],
    tags: tags.map((name) => ({ name })),
    paths,
    components: {
      schemas: schemas.schemas,
      securitySchemes: {
        ApiKey: { type: "apiKey", in: "header", name: "X-Api-Key", description: "A project API key." },
      },
      headers: HEADERS,
      examples: Object.fromEntries((Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => [exampleName(code), errorExample(code)])),
    },
    "x-error-codes": (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => ({
      code,
      status: ERROR_CODES[code].status,
      message: ERROR_CODES[code].message,
    })),
  };
}

function operation(spec: EndpointSpec, schemas: SchemaCollector): JsonObject {
  const codes = errorCodesOf(spec);
  const reservedHeaders = (spec.headers ?? []).filter((h) => RESERVED_HEADERS.has(h.name.toLowerCase()));
  const op: JsonObject = {
    operationId: spec.operationId,
    summary: spec.summary,
    description: describeOperation(spec),
    tags: [spec.tag],
    security: spec.auth === "apiKey" ? [{ ApiKey: [] }] : [],
    parameters: [...pathParameters(spec, schemas), ...queryParameters(spec, schemas), ...headerParameters(spec)],
  };
  if (spec.permission) op["x-permission"] = spec.permission;
  const body = requestBody(spec, schemas, reservedHeaders);
  if (body) op.requestBody = body;
  op.responses = responses(spec, schemas, codes);
  op["x-error-codes"] = codes;
  return op;
}

function describeOperation(spec: EndpointSpec): string {
  const auth =
    spec.auth === "none"
      ? "No authentication."
      : spec.permission
        ? `Requires permission \`${spec.permission}\`.`
        : "Requires a project API key.";
  const idempotency = spec.idempotent
    ? "Accepts `Idempotency-Key`: a retry with the same key returns the first response with `Idempotent-Replayed: true`."
    : undefined;
  return [spec.description, auth, idempotency].filter(Boolean).join("\n\n");
}

/**
 * The codes an operation can answer with: those its spec lists, plus the ones the `handle()` wrapper
 * itself produces for this kind of endpoint (auth, permission, rate limit, path ids, input
 * parsing, idempotency, unexpected failures), so the document stays right when a spec forgets one.
 */
export function errorCodesOf(spec: EndpointSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>(spec.errors);
  const pathNames = pathTemplateNames(spec.path);
  if (spec.auth === "apiKey") {
    codes.add("auth/missing-token").add("auth/invalid-api-key").add("rate-limit/exceeded");
    if (spec.permission) codes.add("auth/insufficient-permissions");
    if (pathNames.includes("projectId")) codes.add("auth/project-mismatch").add("project/not-found");
    if (spec.idempotent) codes.add("idempotency/invalid-key").add("idempotency/request-in-progress").add("idempotency/key-reused");
  }
  if (pathNames.includes("assetId")) codes.add("asset/not-found");
  if (pathNames.includes("folderId")) codes.add("folder/not-found");
  if (spec.query) codes.add("request/validation-failed");
  if (spec.body && spec.body !== "raw") codes.add("request/validation-failed").add("request/malformed-json").add("request/body-too-large");
  codes.add("internal/unexpected");
  const order = Object.keys(ERROR_CODES);
  return [...codes].sort((a, b) => order.indexOf(a) - order.indexOf(b));
}

export function pathTemplateNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
}

function pathParameters(spec: EndpointSpec, schemas: SchemaCollector): JsonObject[] {
  const names = pathTemplateNames(spec.path);
  const props = spec.params ? objectProperties(schemas.convert(spec.params, "input"), spec, "params").properties : {};
  return names.map((name) => parameter(name, "path", true, props[name] ?? { type: "string" }));
}

function queryParameters(spec: EndpointSpec, schemas: SchemaCollector): JsonObject[] {
  if (!spec.query) return [];
  const { properties, required } = objectProperties(schemas.convert(spec.query, "input"), spec, "query");
  return Object.entries(properties).map(([name, schema]) => parameter(name, "query", required.includes(name), schema));
}

function headerParameters(spec: EndpointSpec): JsonObject[] {
  return (spec.headers ?? [])
    .filter((h) => !RESERVED_HEADERS.has(h.name.toLowerCase()))
    .map((h) => ({ name: h.name, in: "header", required: h.required, description: h.description, schema: { type: "string" } }));
}

/** One parameter; the property's description moves up to the parameter. */
function parameter(name: string, location: "path" | "query", required: boolean, propertySchema: JsonObject): JsonObject {
  const { description, ...schema } = propertySchema;
  const param: JsonObject = { name, in: location, required };
  if (typeof description === "string") param.description = description;
  param.schema = schema;
  return param;
}

function objectProperties(
  json: JsonObject,
  spec: EndpointSpec,
  what: string,
): { properties: Record<string, JsonObject>; required: string[] } {
  if (json.type !== "object" || (json.properties !== undefined && !isObject(json.properties))) {
    throw new Error(`OpenAPI: ${spec.operationId}: the ${what} schema must be a zod object (got ${JSON.stringify(json).slice(0, 200)}).`);
  }
  return {
    properties: (json.properties ?? {}) as Record<string, JsonObject>,
    required: Array.isArray(json.required) ? (json.required as string[]) : [],
  };
}

function requestBody(
  spec: EndpointSpec,
  schemas: SchemaCollector,
  reservedHeaders: { name: string; required: boolean; description: string }[],
): JsonObject | undefined {
  if (!spec.body) return undefined;
  const headerNotes = reservedHeaders.map((h) => `\`${h.name}\`${h.required ? " (required)" : ""}: ${h.description}`);
  if (spec.body === "raw") {
    return {
      required: true,
      description: [spec.rawContentDescription ?? "The raw bytes.", ...headerNotes].join("\n\n"),
      content: {
        ...(spec.jsonBodyAlternative && { "application/json": { schema: schemas.convert(spec.jsonBodyAlternative, "input") } }),
        "application/octet-stream": { schema: BINARY_SCHEMA },
        "*/*": { schema: BINARY_SCHEMA },
      },
    };
  }
  const body: JsonObject = {
    required: !acceptsUndefined(spec.body),
    content: { "application/json": { schema: schemas.convert(spec.body, "input") } },
  };
  if (headerNotes.length > 0) body.description = headerNotes.join("\n\n");
  return body;
}

/** An absent JSON body reaches the schema as `undefined` (lib/http/body.ts). */
function acceptsUndefined(schema: z.ZodType): boolean {
  try {
    return schema.safeParse(undefined).success;
  } catch {
    return false;
  }
}

function responses(spec: EndpointSpec, schemas: SchemaCollector, codes: ErrorCode[]): Record<string, JsonObject> {
  const commonHeaders: JsonObject = { "X-Request-Id": ref("headers", "X-Request-Id") };
  // Any first response, errors included, is stored and replayed under an Idempotency-Key.
  if (spec.idempotent) commonHeaders["Idempotent-Replayed"] = ref("headers", "Idempotent-Replayed");

  const result: Record<string, JsonObject> = {};
  const success: JsonObject = { description: spec.response.description, headers: commonHeaders };
  const contentType = spec.response.contentType ?? "application/json";
  if (spec.response.schema) {
    success.content = { [contentType]: { schema: schemas.convert(spec.response.schema, "output") } };
  } else if (spec.response.contentType) {
    success.content = { [contentType]: {} };
  }
  result[String(spec.response.status ?? 200)] = success;

  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers: JsonObject = { ...commonHeaders };
    if (status === 429) {
      headers["Retry-After"] = ref("headers", "Retry-After");
      headers["X-RateLimit-Limit"] = ref("headers", "X-RateLimit-Limit");
      headers["X-RateLimit-Remaining"] = ref("headers", "X-RateLimit-Remaining");
    }
    const examples = Object.fromEntries(statusCodes.map((code) => [code, ref("examples", exampleName(code))]));
    result[String(status)] = {
      description: ["Error. Codes:", ...statusCodes.map((c) => `- \`${c}\`: ${ERROR_CODES[c].message}`)].join("\n"),
      headers,
      content: { "application/json": { schema: ref("schemas", "Error"), examples } },
    };
  }
  return result;
}

/** Component names allow only `[A-Za-z0-9._-]`: `auth/missing-token` → `auth.missing-token`. */
function exampleName(code: ErrorCode): string {
  return code.replace(/\//g, ".");
}

function errorExample(code: ErrorCode): JsonObject {
  const { status, message } = ERROR_CODES[code];
  return { summary: `${status} ${code}`, value: { message, code, traceId: "5f0c7a52-3b8e-4d0a-9c61-2f1e8d7b4a90" } };
}

/**
 * Converts zod schemas and gathers their `$defs` (zod-`id` schemas and recursive ones) into
 * `components.schemas`, rewriting `#/$defs/X` references. Two different schemas with one name get
 * distinct component names (`AssetInput`, `Asset_2`, ...).
 */
class SchemaCollector {
  readonly schemas: Record<string, JsonObject>;

  constructor(initial: Record<string, JsonObject>) {
    this.schemas = { ...initial };
  }

  convert(schema: z.ZodType, io: "input" | "output"): JsonObject {
    const json = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any", override: keepCaseInsensitivePatterns }) as JsonObject;
    const { $schema: _dialect, $defs, ...root } = json;
    const defs = isObject($defs) ? ($defs as Record<string, JsonObject>) : {};
    const names = this.assignNames(defs, io);
    for (const [name, def] of Object.entries(defs)) this.schemas[names.get(name) as string] = rewriteRefs(def, names) as JsonObject;
    return rewriteRefs(root, names) as JsonObject;
  }

  private assignNames(defs: Record<string, JsonObject>, io: "input" | "output"): Map<string, string> {
    const names = new Map(Object.keys(defs).map((n) => [n, n.replace(/[^A-Za-z0-9._-]/g, "_")]));
    // Renaming one def changes the references inside the others, so repeat until nothing moves.
    for (let round = 0; round < 50; round++) {
      let moved = false;
      for (const [name, def] of Object.entries(defs)) {
        const target = names.get(name) as string;
        const content = rewriteRefs(def, names);
        if (this.fits(target, content)) continue;
        const base = name.replace(/[^A-Za-z0-9._-]/g, "_");
        const candidates = [`${base}${io === "input" ? "Input" : "Output"}`, ...Array.from({ length: 100 }, (_, i) => `${base}_${i + 2}`)];
        const free = candidates.find((c) => c !== target && this.fits(c, content) && ![...names.values()].includes(c));
        if (!free) throw new Error(`OpenAPI: cannot name schema ${name}`);
        names.set(name, free);
        moved = true;
      }
      if (!moved) return names;
    }
    throw new Error("OpenAPI: schema names do not settle");
  }

  private fits(name: string, content: unknown): boolean {
    const existing = this.schemas[name];
    return existing === undefined || JSON.stringify(existing) === JSON.stringify(content);
  }
}

/**
 * JSON Schema patterns have no flags, so zod writes an `/i` regex's source as is (a UUID pattern
 * would then refuse upper-case ids the API accepts). Rewrite such a pattern to match both cases.
 */
function keepCaseInsensitivePatterns(ctx: { zodSchema: unknown; jsonSchema: JsonObject }): void {
  if (typeof ctx.jsonSchema.pattern !== "string") return;
  const checks = (ctx.zodSchema as { _zod?: { def?: { checks?: { _zod?: { def?: { pattern?: unknown } } }[] } } })._zod?.def?.checks;
  const regexes = (checks ?? []).map((c) => c._zod?.def?.pattern).filter((p): p is RegExp => p instanceof RegExp);
  const regex = regexes.length === 1 ? regexes[0] : undefined;
  if (!regex || !regex.flags.includes("i") || regex.source !== ctx.jsonSchema.pattern) return;
  const source = caseInsensitiveSource(regex.source);
  if (source !== undefined) ctx.jsonSchema.pattern = source;
}

/** `[0-9a-f]` → `[0-9a-fA-F]`, `x` → `[xX]`; undefined for constructs it does not handle. */
export function caseInsensitiveSource(source: string): string | undefined {
  if (/\\[pPk]|\(\?<[^=!]/.test(source)) return undefined;
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i] as string;
    if (ch === "\\") {
      const next = source[i + 1] ?? "";
      const length = next === "u" ? 6 : next === "x" ? 4 : next === "c" ? 3 : 2;
      out += source.slice(i, i + length);
      i += length - 1;
    } else if (inClass) {
      if (ch === "]") {
        inClass = false;
        out += ch;
      } else if (/[a-z]/i.test(ch) && source[i + 1] === "-" && /[a-z]/i.test(source[i + 2] ?? "")) {
        const range = `${ch}-${source[i + 2]}`;
        out += `${range.toLowerCase()}${range.toUpperCase()}`;
        i += 2;
      } else {
        out += /[a-z]/i.test(ch) ? `${ch.toLowerCase()}${ch.toUpperCase()}` : ch;
      }
    } else if (ch === "[") {
      inClass = true;
      out += ch;
      if (source[i + 1] === "^") out += source[++i];
    } else {
      out += /[a-z]/i.test(ch) ? `[${ch.toLowerCase()}${ch.toUpperCase()}]` : ch;
    }
  }
  return out;
}

function rewriteRefs(value: unknown, names: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, names));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === "$ref" && typeof v === "string" && v.startsWith("#/$defs/")) {
      const name = decodeURIComponent(v.slice("#/$defs/".length)).replace(/~1/g, "/").replace(/~0/g, "~");
      out[key] = `#/components/schemas/${names.get(name) ?? name}`;
    } else {
      out[key] = rewriteRefs(v, names);
    }
  }
  return out;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
