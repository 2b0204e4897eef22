import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ErrorCode } from "@/lib/core/errors";
import { defineEndpoint, type EndpointSpec } from "@/lib/http/endpoint";
import { generateOpenApiDocument } from "@/lib/openapi/document";
import { API_ENDPOINTS } from "@/lib/openapi/registry";
import { caseInsensitiveSource, SchemaCollector } from "@/lib/openapi/schema-collector";
import { structuralProblems, type Json } from "@/lib/openapi/structural-checks";

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

describe("recursive schemas", () => {
  it("names a recursive schema with an id once, without an anonymous alias", () => {
    const json = z.json().meta({ id: "Anything" });
    const collector = new SchemaCollector({});
    const root = collector.convert(z.object({ a: json, b: z.array(json) }), "output");
    expect(Object.keys(collector.schemas)).toEqual(["Anything"]);
    expect(root.properties).toEqual({ a: { $ref: "#/components/schemas/Anything" }, b: { type: "array", items: { $ref: "#/components/schemas/Anything" } } });
    expect(JSON.stringify(collector.schemas.Anything)).toContain('"$ref":"#/components/schemas/Anything"');
  });
});

