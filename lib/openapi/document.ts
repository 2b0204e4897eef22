import type { EndpointSpec } from "@/lib/http/endpoint";
import { ERROR_CODES, type ErrorCode } from "@/lib/core/errors";
import { errorCodesOf } from "@/lib/openapi/error-codes";
import { API_ENDPOINTS } from "@/lib/openapi/registry";
import { requestOf } from "@/lib/openapi/request";
import { SchemaCollector, type JsonObject } from "@/lib/openapi/schema-collector";

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

// A type (not an interface), so it is a JSON object to the openapi endpoint's response schema.
export type OpenApiDocument = {
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
};

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
        "Every error response has the body `{message, code, traceId}`; `x-error-codes` lists all codes. " +
        "JSON bodies may nest objects and arrays at most 64 levels deep (deeper: 400 `request/validation-failed`).",
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
  const { parameters, requestBody } = requestOf(spec, schemas);
  const op: JsonObject = {
    operationId: spec.operationId,
    summary: spec.summary,
    description: describeOperation(spec),
    tags: [spec.tag],
    security: spec.auth === "apiKey" ? [{ ApiKey: [] }] : [],
    parameters,
  };
  if (spec.permission) op["x-permission"] = spec.permission;
  if (requestBody) op.requestBody = requestBody;
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
