import type { AssetDraft } from "@/lib/assets/draft";
import { createAssetFromContent } from "@/lib/assets/ingest";
import { decodeInlineContent } from "@/lib/assets/inline-content";
import { addPart, startMultipartUpload } from "@/lib/assets/multipart";
import { createAssetFromUrl } from "@/lib/assets/remote";
import type {
  CreateAssetBody,
  MultipartStartQuery,
  PartBody,
  PartQuery,
  ProcessingOptions,
  RawBytesHeaders,
  RawUploadHeaders,
  RawUploadQuery,
} from "@/lib/assets/schemas";
import { serializeAsset, type ApiAsset } from "@/lib/assets/serialize";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import type { RawBody, RawOrJsonValue } from "@/lib/http/endpoint";
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

/** A raw upload: the streamed bytes with their parsed upload headers. */
export interface RawUpload {
  body: RawBody;
  headers: RawUploadHeaders;
}

export async function uploadRawAsset(target: UploadTarget, query: RawUploadQuery, { body, headers }: RawUpload): Promise<ApiAsset> {
  const row = await createAssetFromContent(rawDraft(target, query, headers), {
    source: body.stream,
    declaredType: headers["content-type"],
    fileName: headers["content-disposition"].fileName,
  });
  return serializeAsset(await processAfterUpload(row));
}

export async function startRawMultipartUpload(
  target: UploadTarget,
  query: MultipartStartQuery,
  { body, headers }: RawUpload,
): Promise<ApiAsset> {
  const row = await startMultipartUpload(
    rawDraft(target, query, headers),
    { source: body.stream, declaredType: headers["content-type"], partNumber: query.partNumber, isFinal: query.isFinal ?? false },
    query.totalSizeInBytes,
  );
  return serializeAsset(await processAfterUpload(row));
}

/** A part arrives as JSON `{part}` (same forms as Create Asset) or as raw bytes numbered by the query. */
export async function uploadPart(asset: AssetRow, query: PartQuery, upload: RawOrJsonValue<PartBody, RawBytesHeaders>): Promise<ApiAsset> {
  const part =
    upload.kind === "json"
      ? {
          source: decodeInlineContent(upload.value.part),
          declaredType: upload.value.part.type,
          partNumber: upload.value.part.partNumber,
          isFinal: upload.value.part.isFinal,
        }
      : { source: upload.body.stream, declaredType: upload.headers["content-type"], partNumber: query.partNumber, isFinal: query.isFinal ?? false };
  return serializeAsset(await processAfterUpload(await addPart(asset, part)));
}

function rawDraft(target: UploadTarget, query: RawUploadQuery, headers: RawUploadHeaders): AssetDraft {
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
      name: query.name ?? headers["content-disposition"].fileName ?? "upload",
      description: query.description ?? null,
      visibility: query.visibility ?? null,
      externalId: query.externalId ?? null,
      externalUrl: query.externalUrl ?? null,
      folderId: query.folderId ?? null,
      processingOptions,
    },
  };
}
