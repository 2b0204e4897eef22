import { expect } from "vitest";
import { ApiClient, pngBytes, type TestProject } from "./support";

/** Helpers of the Create Asset and raw-bytes upload tests (assets-create*.test.ts, assets-raw-upload.test.ts). */

/** Every field of the spec's Asset table; the API always sends all of them (null when unset). */
export const ASSET_FIELDS = [
  "id", "projectId", "sizeInBytes", "userId", "parentId", "folderId", "createdAt", "updatedAt", "checksums",
  "imageData", "documentData", "name", "fileFormat", "fileExtension", "description", "externalId", "externalUrl",
  "previewImage", "storageId", "uploadPartsReceived", "type", "metadata", "tags", "report", "moderationAction",
  "status", "safetyHold", "rejectionNote", "extractedText", "processingOptions", "visibility", "storageDeletedAt",
];

/** Fields Sieve adds to the spec's Asset (documented in docs/api.md): what an image shows. */
export const SIEVE_ASSET_FIELDS = ["imageLabels"];

export const PDF = Buffer.from("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n", "latin1");
export const HTML = Buffer.from("<!doctype html><html><head><title>t</title></head><body><p>Hello</p></body></html>", "utf8");
/** Bytes no magic-number table knows and that are not text. */
export const BINARY = Buffer.from([0x13, 0x37, 0x00, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x42, 0x01, 0x02, 0x99, 0x00, 0x7f]);

/** A real PNG header (so type detection and sharp see an image) padded with filler to `size` bytes. */
export async function bigPng(size: number): Promise<Buffer> {
  const png = await pngBytes(16, 12);
  return Buffer.concat([png, Buffer.alloc(size - png.length, 0x5a)]);
}

export function expectAssetShape(body: Record<string, unknown>) {
  expect(Object.keys(body).sort()).toEqual([...ASSET_FIELDS, ...SIEVE_ASSET_FIELDS].sort());
}

export function create(p: TestProject, body: unknown, options: { queue?: string; headers?: Record<string, string> } = {}) {
  const query = options.queue === undefined ? "" : `?queue=${options.queue}`;
  return p.client.post(`/projects/${p.projectId}/assets${query}`, body, options.headers);
}

export function rawUpload(
  p: TestProject,
  bytes: Buffer,
  options: { query?: Record<string, string>; headers?: Record<string, string>; client?: ApiClient } = {},
) {
  const query = new URLSearchParams(options.query ?? {}).toString();
  return (options.client ?? p.client).request("POST", `/projects/${p.projectId}/assets/upload${query ? `?${query}` : ""}`, {
    body: bytes,
    headers: options.headers ?? { "X-Service-Upload": "content", "Content-Type": "image/png" },
  });
}
