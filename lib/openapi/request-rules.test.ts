import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { createAssetEndpoint, patchAssetEndpoint, uploadPartEndpoint } from "@/lib/assets/endpoints";
import { createBatchEndpoint } from "@/lib/assets/batch/endpoints";
import { updateConnectorEndpoint } from "@/lib/connectors/endpoints";
import { createSignedUrlEndpoint } from "@/lib/cdn/endpoints";
import { createFolderEndpoint } from "@/lib/folders/endpoints";
import { isRawOrJson, type EndpointSpec } from "@/lib/http/endpoint";
import { ensureLensEndpoint } from "@/lib/lenses/endpoints";
import { buildOpenApiDocument } from "@/lib/openapi/document";
import { OpenApiConformance } from "@/tests/support/openapi-conformance";

/**
 * The rules between fields that the server enforces are in the document too: for bodies that vary
 * only in what those rules decide, an independent validator (Ajv, on the document) accepts exactly
 * the bodies the server's schema (zod) accepts.
 */

const conformance = new OpenApiConformance(buildOpenApiDocument());

function jsonBodyOf(spec: EndpointSpec): z.ZodType {
  const body = spec.body;
  if (isRawOrJson(body)) return body.json;
  if (!body || body === "raw") throw new Error(`${spec.operationId} has no JSON body`);
  return body;
}

/** Both verdicts, for one body: the server's (zod) and the document's (Ajv). */
function verdicts(spec: EndpointSpec, body: unknown) {
  const server = jsonBodyOf(spec).safeParse(body).success;
  const documentProblems = conformance.requestProblems(spec.operationId, body);
  return { server, document: documentProblems.length === 0, documentProblems };
}

function expectAgreement(spec: EndpointSpec, body: unknown, expected: boolean) {
  const v = verdicts(spec, body);
  expect({ server: v.server, document: v.document }, `${spec.operationId} ${JSON.stringify(body)} ${v.documentProblems.join("; ")}`).toEqual({
    server: expected,
    document: expected,
  });
}

/** Some of `fields` (each present or not), with their values. */
const subsetOf = (fields: Record<string, unknown>) =>
  fc.subarray(Object.keys(fields)).map((keys) => Object.fromEntries(keys.map((k) => [k, fields[k]])));

describe("request rules in the OpenAPI document", () => {
  it("Create Signed URL: lens or transform, not both", () => {
    const variants = { lens: "thumbnail", transform: "width=100" };
    fc.assert(
      fc.property(subsetOf(variants), (fields) => {
        const body = { resource: "content", expiresInSeconds: 60, ...fields };
        expectAgreement(createSignedUrlEndpoint, body, Object.keys(fields).length < 2);
      }),
    );
  });

  it("Create Asset: exactly one of content, part or url; sizeInBytes and totalSizeInBytes only with part", () => {
    const variants = {
      content: { plainText: "hello", type: "text/plain" },
      part: { base64: "aGVsbG8=", type: "text/plain", partNumber: 1, isFinal: false },
      url: "https://example.com/a.png",
      sizeInBytes: 5,
      totalSizeInBytes: 10,
    };
    fc.assert(
      fc.property(subsetOf(variants), (fields) => {
        const v = verdicts(createAssetEndpoint, { name: "a.txt", ...fields });
        expect(v.document, `${JSON.stringify(fields)}: ${v.documentProblems.join("; ")}`).toBe(v.server);
      }),
      { numRuns: 200 },
    );
    expectAgreement(createAssetEndpoint, { name: "a.txt", content: variants.content, url: variants.url }, false);
    expectAgreement(createAssetEndpoint, { name: "a.txt", url: variants.url, sizeInBytes: 5 }, false);
    expectAgreement(createAssetEndpoint, { name: "a.txt", part: variants.part, sizeInBytes: 5 }, true);
  });

  it("content and parts: exactly one content form, plus type", () => {
    const forms = { plainText: "hi", base64: "aGk=", uint8Array: [104, 105], buffer: { type: "Buffer", data: [104] }, data: "data:text/plain,hi" };
    fc.assert(
      fc.property(subsetOf(forms), (content) => {
        const create = verdicts(createAssetEndpoint, { name: "a", content: { ...content, type: "text/plain" } });
        expect(create.document, `content ${JSON.stringify(content)}`).toBe(create.server);
        const part = verdicts(uploadPartEndpoint, { part: { ...content, type: "text/plain" } });
        expect(part.document, `part ${JSON.stringify(content)}`).toBe(part.server);
      }),
      { numRuns: 100 },
    );
  });

  it("PATCH /assets/{assetId}: at least one field", () => {
    const fields = { name: "n", description: null, visibility: "public", tags: ["a"], externalId: "x-1", externalUrl: null, metadata: [] };
    fc.assert(
      fc.property(subsetOf(fields), (body) => {
        const v = verdicts(patchAssetEndpoint, body);
        expect(v.document, JSON.stringify(body)).toBe(v.server);
      }),
      { numRuns: 100 },
    );
    expectAgreement(patchAssetEndpoint, {}, false);
  });

  it("PATCH /connectors/{connectorId}: at least one of name, url, recipients, eventTypes (type alone is not a change)", () => {
    const fields = { type: "webhook", name: "hook", url: "https://example.com/hook", recipients: ["a@example.com"], eventTypes: ["asset.flagged"] };
    fc.assert(
      fc.property(subsetOf(fields), (body) => {
        const v = verdicts(updateConnectorEndpoint, body);
        expect(v.document, JSON.stringify(body)).toBe(v.server);
      }),
      { numRuns: 100 },
    );
    expectAgreement(updateConnectorEndpoint, { type: "slack" }, false);
  });

  it("folder names: 1 to 100 characters, no slashes, not blank", () => {
    const character = fc.constantFrom("a", "Z", "é", " ", "\t", "\n", "\u00a0", "\u2003", "/", "\\", "-");
    fc.assert(
      fc.property(fc.array(character, { maxLength: 6 }).map((chars) => chars.join("")), (name) => {
        const v = verdicts(createFolderEndpoint, { name });
        expect(v.document, JSON.stringify(name)).toBe(v.server);
      }),
      { numRuns: 300 },
    );
    for (const name of ["a/b", "a\\b", "   ", "\u00a0", ""]) expectAgreement(createFolderEndpoint, { name }, false);
    expectAgreement(createFolderEndpoint, { name: " x " }, true);
  });

  it("lenses: imageTransform with its option schema, and none on an audio lens", () => {
    const lens = (type: string, transforms: unknown) => ({ identifier: "x", name: "X", type, active: true, version: 1, transforms });
    const transform = (type: string, options: unknown) => [{ type, options }];
    expectAgreement(ensureLensEndpoint, lens("image", transform("imageTransform", { width: 300, fit: "cover", format: "webp" })), true);
    expectAgreement(ensureLensEndpoint, lens("image", transform("resize", { width: 300 })), false);
    expectAgreement(ensureLensEndpoint, lens("image", transform("imageTransform", { width: -1 })), false);
    expectAgreement(ensureLensEndpoint, lens("image", transform("imageTransform", { colour: "red" })), false);
    expectAgreement(ensureLensEndpoint, lens("audio", transform("imageTransform", {})), false);
    expectAgreement(ensureLensEndpoint, lens("audio", null), true);
    expectAgreement(ensureLensEndpoint, lens("audio", []), true);
  });

  it("batches: each asset once", () => {
    const id = "0b7c1e9e-2f55-4a53-9d8e-3c1a51c8a0f2";
    expectAgreement(createBatchEndpoint, { operation: "delete", assetIds: [id, id] }, false);
    expectAgreement(createBatchEndpoint, { operation: "delete", assetIds: [id] }, true);
  });
});
