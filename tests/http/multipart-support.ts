import { readdir } from "node:fs/promises";
import path from "node:path";
import { inject } from "vitest";
import { ApiClient, pngBytes, type TestProject } from "./support";

/** Helpers of the multipart upload tests (assets-multipart*.test.ts). */

export const b64 = (bytes: Buffer) => bytes.toString("base64");

/** A real PNG header (type detection and sharp see an image) padded with filler to `size` bytes. */
export async function bigPng(size: number): Promise<Buffer> {
  const png = await pngBytes(20, 10);
  return Buffer.concat([png, Buffer.alloc(size - png.length, 0x33)]);
}

/** Variant B: JSON start with the first part. */
export function startJson(
  p: TestProject,
  first: Buffer,
  extra: {
    type?: string;
    partNumber?: number;
    isFinal?: boolean;
    totalSizeInBytes?: number;
    sizeInBytes?: number;
    name?: string;
    folderId?: string;
    externalId?: string;
    processingOptions?: Record<string, unknown>;
  } = {},
  queue?: string,
) {
  const { type = "image/png", partNumber, isFinal, name = "multi.png", ...top } = extra;
  return p.client.post(`/projects/${p.projectId}/assets${queue === undefined ? "" : `?queue=${queue}`}`, {
    name,
    part: { base64: b64(first), type, ...(partNumber !== undefined && { partNumber }), ...(isFinal !== undefined && { isFinal }) },
    ...top,
  });
}

/** Raw start: POST /projects/:id/assets/multipart-upload with the bytes of part 1. */
export function startRaw(
  p: TestProject,
  first: Buffer,
  query: Record<string, string> = {},
  headers: Record<string, string> = { "X-Service-Upload": "part", "Content-Type": "image/png" },
) {
  const qs = new URLSearchParams(query).toString();
  return p.client.request("POST", `/projects/${p.projectId}/assets/multipart-upload${qs ? `?${qs}` : ""}`, { body: first, headers });
}

export function partJson(client: ApiClient, assetId: string, bytes: Buffer, partNumber?: number, isFinal?: boolean, headers?: Record<string, string>) {
  return client.post(
    `/assets/${assetId}/part`,
    { part: { base64: b64(bytes), type: "application/octet-stream", ...(partNumber !== undefined && { partNumber }), ...(isFinal !== undefined && { isFinal }) } },
    headers,
  );
}

export function partRaw(
  client: ApiClient,
  assetId: string,
  bytes: Buffer,
  query: Record<string, string> = {},
  headers: Record<string, string> = { "X-Service-Upload": "part", "Content-Type": "application/octet-stream" },
) {
  const qs = new URLSearchParams(query).toString();
  return client.request("POST", `/assets/${assetId}/part${qs ? `?${qs}` : ""}`, { body: bytes, headers });
}

export async function uploadFiles(projectId: string, assetId: string): Promise<string[]> {
  const dir = path.join(inject("dataDir"), "storage", "projects", projectId, "uploads", assetId);
  return readdir(dir).catch(() => []);
}

/** The PNG cut into three parts. */
export function thirds(bytes: Buffer): [Buffer, Buffer, Buffer] {
  const a = Math.floor(bytes.length / 3);
  return [bytes.subarray(0, a), bytes.subarray(a, 2 * a), bytes.subarray(2 * a)];
}
