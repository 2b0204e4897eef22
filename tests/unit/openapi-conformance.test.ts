import { describe, expect, it } from "vitest";
import { serializeAsset } from "@/lib/assets/serialize";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import { CATEGORIES, buildReport, type CategoryThresholds } from "@/lib/moderation/report";
import { buildOpenApiDocument } from "@/lib/openapi/document";
import { OpenApiConformance } from "@/tests/support/openapi-conformance";

/**
 * The checker the HTTP suite runs on every response (tests/support/openapi-conformance.ts): it
 * passes what the serializers send for the shapes the issue named (EXIF orientation, hash-list
 * holds, every report shape), and it catches what does not conform.
 */

const conformance = new OpenApiConformance(buildOpenApiDocument());
const thresholds = Object.fromEntries(CATEGORIES.map((c) => [c, 0.6])) as CategoryThresholds;
const ASSET_ID = "0b7c1e9e-2f55-4a53-9d8e-3c1a51c8a0f2";

const report = buildReport({
  categories: {
    sexual: { status: "evaluated", score: 0.1, qualifiers: { nudity: 0.05 } },
    violence: { status: "partial", score: 0.7, qualifiers: { "violent-threat": 0.7 } },
    hate: { status: "not-evaluated", reason: "unavailable" },
  },
  thresholds,
  notes: { provider: "test", rulesFired: [{ rule: "threat", matched: "hurt you" }] },
  media: {
    durationSeconds: 4,
    frameIntervalSeconds: 2,
    sampledFrames: 2,
    audioTranscribed: true,
    segments: [
      { source: "frame", startSeconds: 0, endSeconds: 2, categories: { sexual: { status: "evaluated", score: 0.2 } } },
      { source: "speech", startSeconds: 1, endSeconds: 3.5, categories: { violence: { status: "evaluated", score: 0.9 } } },
    ],
  },
});

function row(overrides: Partial<AssetRow> = {}): AssetRow {
  const at = new Date("2025-01-02T03:04:05Z");
  return {
    id: ASSET_ID,
    projectId: "5c6c7310-0000-4000-8000-000000000001",
    userId: null,
    parentId: null,
    folderId: null,
    name: "photo.jpg",
    description: null,
    externalId: null,
    externalUrl: null,
    sourceUrl: null,
    type: "image",
    status: "rejected",
    fileFormat: "image/jpeg",
    fileExtension: "jpg",
    sizeInBytes: 1234n,
    checksums: { sha256: "ab", md5: "cd" },
    imageData: { width: 300, height: 200, format: "jpeg", hasAlpha: false, pages: 1, orientation: 6 },
    documentData: null,
    previewImage: { fileFormat: "image/webp", width: 200, height: 300, sizeInBytes: 900, source: "image", generation: 1 },
    storageId: "p/a/content",
    storageDeletedAt: null,
    uploadPartsReceived: null,
    metadata: [{ id: "k", value: 1 }],
    tags: [],
    report,
    flagged: true,
    moderationAction: "hide",
    safetyHold: { source: "hash-list", reason: "matched", list: "known", label: null, hash: "f0f0", distance: 3, where: "image", heldAt: 1 },
    rejectionNote: "Automatically rejected (hide): flagged for violence",
    extractedText: null,
    processingOptions: { keepContentAfterProcessing: true },
    visibility: null,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  } as AssetRow;
}

const getAsset = (body: unknown, status = 200) => ({ method: "GET", path: `/assets/${ASSET_ID}`, status, contentType: "application/json", body });

describe("OpenAPI conformance checker", () => {
  it("passes the serialized asset: EXIF orientation, a hash-list hold, every report shape with media segments", () => {
    expect(conformance.problems(getAsset(serializeAsset(row())))).toEqual([]);
    const operatorHold = { source: "admin-cli", reason: "legal", heldAt: 5 };
    const documentImage = { width: 10, height: 20 };
    expect(conformance.problems(getAsset(serializeAsset(row({ safetyHold: operatorHold, imageData: documentImage, report: null }))))).toEqual([]);
  });

  it("refuses what the document does not describe", () => {
    const asset = serializeAsset(row());
    const withExtra = { ...asset, imageData: { ...asset.imageData, colourSpace: "srgb" } };
    expect(conformance.problems(getAsset(withExtra)).join()).toMatch(/imageData.*additional/);
    const badEntry = { ...asset, report: { ...report, categories: { ...report.categories, hate: { status: "skipped" } } } };
    expect(conformance.problems(getAsset(badEntry))).not.toEqual([]);
    const badHold = { ...asset, safetyHold: { source: "hash-list", reason: "matched", heldAt: 1 } };
    expect(conformance.problems(getAsset(badHold))).not.toEqual([]);
    const fiveCategories = { ...asset, report: { ...report, categories: { ...report.categories, sexual: undefined } } };
    expect(conformance.problems(getAsset(JSON.parse(JSON.stringify(fiveCategories))))).not.toEqual([]);
  });

  it("checks statuses, error codes and error bodies by operation", () => {
    const error = (code: string) => ({ message: "m", code, traceId: "t" });
    expect(conformance.problems(getAsset(error("asset/not-found"), 404))).toEqual([]);
    expect(conformance.problems(getAsset(error("folder/not-found"), 404)).join()).toMatch(/not in the operation's x-error-codes/);
    expect(conformance.problems(getAsset(error("asset/not-found"), 418)).join()).toMatch(/status 418 is not documented/);
    expect(conformance.problems(getAsset({ ...error("asset/not-found"), stack: "..." }, 404))).not.toEqual([]);
    // An unknown path has no operation; its answer is still the error body.
    expect(conformance.problems({ method: "GET", path: "/nowhere", status: 404, contentType: "application/json", body: error("request/route-not-found") })).toEqual([]);
    expect(conformance.problems({ method: "GET", path: "/nowhere", status: 200, contentType: "application/json", body: {} })).not.toEqual([]);
  });

  it("compiles every request and response schema of the document with Ajv (JSON Schema 2020-12)", () => {
    const document = buildOpenApiDocument();
    let compiled = 0;
    for (const [template, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item) as [string, Record<string, any>][]) {
        for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
          for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, any>)) {
            if (!media.schema) continue;
            expect(() => conformance.validate(conformance.ref("paths", template, method, "responses", status, "content", type, "schema"), null)).not.toThrow();
            compiled++;
          }
        }
        if (operation.requestBody?.content?.["application/json"]) {
          expect(() => conformance.requestProblems(operation.operationId, {})).not.toThrow();
          compiled++;
        }
      }
    }
    expect(compiled).toBeGreaterThan(100);
  });

  it("finds the operation with the most literal segments", () => {
    expect(conformance.operationOf("GET", "/projects/p/assets/page?pageSize=5")?.operation.operationId).toBe("listAssets");
    expect(conformance.operationOf("GET", "/projects/p/assets/batch/b")?.operation.operationId).toBe("getAssetBatch");
    expect(conformance.operationOf("POST", "/projects/p/events/read")?.operation.operationId).toBe("markEventsRead");
  });

  it("checks that the document accepts a request body the server accepted", () => {
    const created = { method: "POST", path: "/projects/p/folders", status: 200, contentType: "application/json" };
    const folder = { id: "f", projectId: "p", parentId: null, name: "a", createdAt: 1, updatedAt: 1 };
    expect(conformance.problems({ ...created, body: folder, requestJson: { name: "a" } })).toEqual([]);
    expect(conformance.problems({ ...created, body: folder, requestJson: { name: "a/b" } }).join()).toMatch(/accepted a request body the document refuses/);
  });
});

describe("the compile-time link between responses and the document", () => {
  // `npm test`'s typecheck runs these lines: each must fail to compile, or its @ts-expect-error is
  // unused and the typecheck fails. Their runtime part checks the handlers are still built. (An
  // extra field is caught where the object is written: serializers declare the schema's type.)
  it("handle() takes only the response schema's type, and serializers return it", async () => {
    const { handle, endpointOf } = await import("@/lib/http/handler");
    const { getAssetEndpoint, listAssetsEndpoint } = await import("@/lib/assets/endpoints");
    const asset = serializeAsset(row());
    const { report: _report, ...withoutReport } = asset;
    // @ts-expect-error a documented field missing
    const missing = handle(getAssetEndpoint, async () => withoutReport);
    // @ts-expect-error a value outside the documented enum
    const outOfEnum = handle(getAssetEndpoint, async () => ({ ...asset, status: "archived" }));
    // @ts-expect-error an asset where the schema says a page of assets
    const wrongShape = handle(listAssetsEndpoint, async () => asset);
    // @ts-expect-error serializers return the schema's type: a field it does not declare is refused
    const nested: ReturnType<typeof serializeAsset> = { ...asset, imageData: { width: 1, height: 1, colourSpace: "srgb" } };
    for (const handler of [missing, outOfEnum]) expect(endpointOf(handler)).toBe(getAssetEndpoint);
    expect(endpointOf(wrongShape)).toBe(listAssetsEndpoint);
    expect(nested.imageData).toMatchObject({ width: 1 });
  });
});
