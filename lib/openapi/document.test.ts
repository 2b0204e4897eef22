import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ERROR_CODES } from "@/lib/core/errors";
import { buildOpenApiDocument } from "@/lib/openapi/document";
import { errorCodesOf, pathTemplateNames } from "@/lib/openapi/error-codes";
import { API_ENDPOINTS } from "@/lib/openapi/registry";
import { operations, resolvePointer, structuralProblems, type Json } from "@/lib/openapi/structural-checks";

/** The served document: structure, operations, errors, security, parameters and bodies. */

const doc = buildOpenApiDocument();

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

  it("documents a raw-or-JSON body, the raw form's headers as optional, and Idempotency-Key where it applies", () => {
    const part = doc.paths["/assets/{assetId}/part"]?.post as Json;
    expect(Object.keys(part.requestBody.content)).toEqual(["application/json", "application/octet-stream", "*/*"]);
    expect(part.requestBody.content["application/json"].schema).toMatchObject({ type: "object", required: ["part"] });
    expect(part.parameters).toContainEqual(expect.objectContaining({ name: "X-Service-Upload", in: "header", required: false }));
    expect(part.requestBody.description).toContain("Content-Type");
    expect(part["x-error-codes"]).toContain("upload/missing-header");
    for (const spec of API_ENDPOINTS) {
      const op = doc.paths[spec.path]?.[spec.method.toLowerCase()] as Json;
      const idempotencyKey = op.parameters.filter((p: Json) => p.in === "header" && p.name === "Idempotency-Key");
      expect(idempotencyKey, spec.operationId).toHaveLength(spec.idempotent ? 1 : 0);
    }
  });

  it("describes what the server sends: imageData with orientation, both safety holds, the typed report", () => {
    const schemas = doc.components.schemas as Record<string, Json>;
    const asset = schemas.Asset as Json;
    expect(asset.additionalProperties).toBe(false);
    expect(asset.properties.imageData.anyOf[0]).toEqual({ $ref: "#/components/schemas/ImageData" });
    expect(Object.keys(schemas.ImageData!.properties)).toEqual(["width", "height", "format", "hasAlpha", "pages", "orientation"]);
    expect(schemas.SafetyHold!.oneOf).toEqual([{ $ref: "#/components/schemas/OperatorSafetyHold" }, { $ref: "#/components/schemas/HashListSafetyHold" }]);
    expect(schemas.HashListSafetyHold!.required).toEqual(["source", "reason", "list", "label", "hash", "distance", "where", "heldAt"]);
    expect(asset.properties.report.anyOf[0]).toEqual({ $ref: "#/components/schemas/Report" });
    expect(schemas.ReportCategories!.required).toEqual(["sexual", "violence", "self-harm", "harassment", "hate", "criminal-activity"]);
    expect(schemas.CategoryEntry!.oneOf.map((o: Json) => o.properties.status.const)).toEqual(["evaluated", "partial", "not-evaluated"]);
    expect(schemas.QualifierValue!.oneOf.map((o: Json) => o.required)).toEqual([["status", "score", "likelihood"], ["status", "reason"]]);
    expect(schemas.ReportSegment!.properties.source.enum).toEqual(["frame", "speech", "frame-text", "clip"]);
    expect(schemas.JsonValue!.anyOf).toHaveLength(6);
    // No anonymous schema (zod's `__schemaN`) is left in the components.
    expect(Object.keys(schemas).filter((name) => name.startsWith("__"))).toEqual([]);
  });

  it("states the request rules the server enforces (oneOf, dependentRequired, minProperties, anyOf, pattern)", () => {
    const body = (path: string, method: string) => (doc.paths[path]?.[method] as Json).requestBody.content["application/json"].schema as Json;
    const create = body("/projects/{projectId}/assets", "post");
    expect(create.oneOf).toEqual([{ required: ["content"] }, { required: ["part"] }, { required: ["url"] }]);
    expect(create.dependentRequired).toEqual({ sizeInBytes: ["part"], totalSizeInBytes: ["part"] });
    expect(create.properties.content.oneOf).toHaveLength(5);
    expect(body("/assets/{assetId}", "patch").minProperties).toBe(1);
    expect(body("/connectors/{connectorId}", "patch").anyOf).toEqual([{ required: ["name"] }, { required: ["url"] }, { required: ["recipients"] }, { required: ["eventTypes"] }]);
    expect(body("/projects/{projectId}/folders", "post").properties.name.allOf).toEqual([{ pattern: "^[^/\\\\]*$" }, { pattern: "\\S" }]);
  });
});
