import type { z } from "zod";
import { isRawOrJson, type EndpointSpec } from "@/lib/http/endpoint";
import { headerDisplayName, type HeaderSchema } from "@/lib/http/headers";
import { pathTemplateNames } from "@/lib/openapi/error-codes";
import { isObject, type JsonObject, type SchemaCollector } from "@/lib/openapi/schema-collector";

/** What an operation takes: path, query and header parameters, and the request body. */

/** Raw request bodies: any bytes. `format: binary` is what generators and Swagger UI understand. */
const BINARY_SCHEMA: JsonObject = { type: "string", format: "binary" };

/** OpenAPI ignores header parameters with these names; they are described on the request body instead. */
const RESERVED_HEADERS = new Set(["accept", "content-type", "authorization"]);

/** The wrapper reads Idempotency-Key on every `idempotent` endpoint (lib/http/idempotency.ts). */
const IDEMPOTENCY_KEY_HEADER: DocumentedHeader = {
  name: "Idempotency-Key",
  required: false,
  description: "Retries with the same key return the first response (header Idempotent-Replayed: true).",
  schema: { type: "string", minLength: 1, maxLength: 255 },
};

interface DocumentedHeader {
  name: string;
  required: boolean;
  description?: string;
  schema: JsonObject;
}

export function requestOf(spec: EndpointSpec, schemas: SchemaCollector): { parameters: JsonObject[]; requestBody?: JsonObject } {
  const headers = documentedHeaders(spec, schemas);
  const headerParameters = headers
    .filter((h) => !RESERVED_HEADERS.has(h.name.toLowerCase()))
    .map((h) => parameter(h.name, "header", h.required, { ...h.schema, description: h.description }));
  const bodyNotes = headers
    .filter((h) => RESERVED_HEADERS.has(h.name.toLowerCase()))
    .map((h) => `\`${h.name}\`${h.required ? " (required)" : ""}: ${h.description ?? ""}`);
  const requestBody = requestBodyOf(spec, schemas, bodyNotes);
  return {
    parameters: [...pathParameters(spec, schemas), ...queryParameters(spec, schemas), ...headerParameters],
    ...(requestBody && { requestBody }),
  };
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

/** Idempotency-Key, the declared headers, and those of a raw-or-JSON body's raw form (optional: JSON needs none). */
function documentedHeaders(spec: EndpointSpec, schemas: SchemaCollector): DocumentedHeader[] {
  const declared = spec.headers ? headersOf(spec.headers, spec, schemas) : [];
  const rawOnly = isRawOrJson(spec.body)
    ? headersOf(spec.body.rawHeaders, spec, schemas).map((h) => ({
        ...h,
        required: false,
        description: `With raw bytes${h.required ? " (required)" : ""}: ${h.description ?? ""}`,
      }))
    : [];
  return [...(spec.idempotent ? [IDEMPOTENCY_KEY_HEADER] : []), ...declared, ...rawOnly];
}

function headersOf(headers: HeaderSchema, spec: EndpointSpec, schemas: SchemaCollector): DocumentedHeader[] {
  const { properties, required } = objectProperties(schemas.convert(headers, "input"), spec, "headers");
  return Object.entries(properties).map(([key, { description, ...schema }]) => ({
    name: headerDisplayName(key),
    required: required.includes(key),
    ...(typeof description === "string" && { description }),
    schema,
  }));
}

/** One parameter; the property's description moves up to the parameter. */
function parameter(name: string, location: "path" | "query" | "header", required: boolean, propertySchema: JsonObject): JsonObject {
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

function requestBodyOf(spec: EndpointSpec, schemas: SchemaCollector, headerNotes: string[]): JsonObject | undefined {
  const body = spec.body;
  if (!body) return undefined;
  if (body === "raw" || isRawOrJson(body)) {
    return {
      required: true,
      description: [spec.rawContentDescription ?? "The raw bytes.", ...headerNotes].join("\n\n"),
      content: {
        ...(isRawOrJson(body) && { "application/json": { schema: schemas.convert(body.json, "input") } }),
        "application/octet-stream": { schema: BINARY_SCHEMA },
        "*/*": { schema: BINARY_SCHEMA },
      },
    };
  }
  const json: JsonObject = {
    required: !acceptsUndefined(body),
    content: { "application/json": { schema: schemas.convert(body, "input") } },
  };
  if (headerNotes.length > 0) json.description = headerNotes.join("\n\n");
  return json;
}

/** An absent JSON body reaches the schema as `undefined` (lib/http/body.ts). */
function acceptsUndefined(schema: z.ZodType): boolean {
  try {
    return schema.safeParse(undefined).success;
  } catch {
    return false;
  }
}
