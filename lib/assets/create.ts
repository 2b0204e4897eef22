import type { Readable } from "node:stream";
import type { AssetDraft } from "@/lib/assets/draft";
import { createAssetFromContent } from "@/lib/assets/ingest";
import { decodeInlineContent } from "@/lib/assets/inline-content";
import { addPart, startMultipartUpload } from "@/lib/assets/multipart";
import { createAssetFromUrl } from "@/lib/assets/remote";
import {
  partBody,
  type CreateAssetBody,
  type MultipartStartQuery,
  type ProcessingOptions,
  type RawUploadQuery,
} from "@/lib/assets/schemas";
import { serializeAsset, type ApiAsset } from "@/lib/assets/serialize";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import { config } from "@/lib/core/config";
import { ApiError } from "@/lib/core/errors";
import { collectStream } from "@/lib/core/streams";
import { parseJsonBody } from "@/lib/http/body";
import { parseOrThrow } from "@/lib/http/validation";
import { processAfterUpload } from "@/lib/assets/processing/dispatch";

/** Entry points of the create/upload endpoints: they turn requests into drafts and content. */

/** The project an upload goes into, with the owner whose allowance it counts against. */
export interface UploadTarget {
  projectId: string;
  ownerUserId: string;
}

export async function createAsset(target: UploadTarget, body: CreateAssetBody, queued: boolean): Promise<ApiAsset> {
  const { content, part, url, sizeInBytes, totalSizeInBytes, ...fields } = body;
  const draft: AssetDraft = { ...target, fields, queued };
  let row: AssetRow;
  if (content) {
    row = await createAssetFromContent(draft, { source: decodeInlineContent(content), declaredType: content.type, fileName: body.name });
  } else if (part) {
    row = await startMultipartUpload(
      draft,
      { source: decodeInlineContent(part), declaredType: part.type, partNumber: part.partNumber, isFinal: part.isFinal, sizeInBytes },
      totalSizeInBytes,
    );
  } else {
    row = await createAssetFromUrl(draft, url as string);
  }
  return serializeAsset(await processAfterUpload(row));
}

export interface RawRequest {
  stream: Readable;
  contentType: string | null;
  headers: Headers;
}

export async function uploadRawAsset(target: UploadTarget, query: RawUploadQuery, raw: RawRequest): Promise<ApiAsset> {
  const declaredType = requireUploadHeaders(raw, "content");
  const row = await createAssetFromContent(rawDraft(target, query, raw.headers), {
    source: raw.stream,
    declaredType,
    fileName: fileNameOf(raw.headers),
  });
  return serializeAsset(await processAfterUpload(row));
}

export async function startRawMultipartUpload(target: UploadTarget, query: MultipartStartQuery, raw: RawRequest): Promise<ApiAsset> {
  const declaredType = requireUploadHeaders(raw, "part");
  const row = await startMultipartUpload(
    rawDraft(target, query, raw.headers),
    { source: raw.stream, declaredType, partNumber: query.partNumber, isFinal: query.isFinal ?? false },
    query.totalSizeInBytes,
  );
  return serializeAsset(await processAfterUpload(row));
}

/** A part arrives as JSON `{part}` (same forms as Create Asset) or as raw bytes. */
export async function uploadPart(
  asset: AssetRow,
  query: { partNumber?: number; isFinal?: boolean },
  raw: RawRequest,
): Promise<ApiAsset> {
  const isJson = /^application\/json\b/i.test(raw.contentType ?? "") && raw.headers.get("x-service-upload") === null;
  if (isJson) {
    const bytes = await collectStream(raw.stream, config().limits.maxJsonBodyBytes, () => new ApiError("request/body-too-large"));
    const { part } = parseOrThrow(partBody, parseJsonBody(bytes), "body");
    return serializeAsset(
      await processAfterUpload(
        await addPart(asset, { source: decodeInlineContent(part), declaredType: part.type, partNumber: part.partNumber, isFinal: part.isFinal }),
      ),
    );
  }
  requireUploadHeaders(raw, "part");
  return serializeAsset(
    await processAfterUpload(
      await addPart(asset, { source: raw.stream, declaredType: raw.contentType, partNumber: query.partNumber, isFinal: query.isFinal ?? false }),
    ),
  );
}

function requireUploadHeaders(raw: RawRequest, kind: "content" | "part"): string {
  const marker = raw.headers.get("x-service-upload");
  if (marker?.trim().toLowerCase() !== kind) {
    throw new ApiError("upload/missing-header", `This endpoint needs the header X-Service-Upload: ${kind}.`);
  }
  if (!raw.contentType) throw new ApiError("upload/missing-header", "The Content-Type header (the file's type) is required.");
  return raw.contentType;
}

function rawDraft(target: UploadTarget, query: RawUploadQuery, headers: Headers): AssetDraft {
  const processingOptions: ProcessingOptions =
    query.keepContentAfterProcessing === undefined && query.flaggedContentPolicy === undefined && query.ocrEnabled === undefined
      ? null
      : {
          ...(query.keepContentAfterProcessing !== undefined && { keepContentAfterProcessing: query.keepContentAfterProcessing }),
          ...(query.flaggedContentPolicy !== undefined && { flaggedContentPolicy: { action: query.flaggedContentPolicy } }),
          ...(query.ocrEnabled !== undefined && { image: { ocrEnabled: query.ocrEnabled } }),
        };
  return {
    ...target,
    queued: query.queue ?? false,
    fields: {
      name: query.name ?? fileNameOf(headers) ?? "upload",
      description: query.description ?? null,
      visibility: query.visibility ?? null,
      externalId: query.externalId ?? null,
      externalUrl: query.externalUrl ?? null,
      folderId: query.folderId ?? null,
      processingOptions,
    },
  };
}

/** The filename of `Content-Disposition: attachment; filename="x"` (or RFC 5987 `filename*`). */
export function fileNameOf(headers: Headers): string | null {
  const value = headers.get("content-disposition");
  if (!value) return null;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(value);
  if (extended?.[1]) {
    try {
      return decodeURIComponent(extended[1].trim()).slice(0, 255) || null;
    } catch {
      return null;
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/.exec(value);
  const name = (plain?.[1] ?? plain?.[2])?.trim().replace(/\\(.)/g, "$1");
  return name ? name.slice(0, 255) : null;
}
