import { randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import { CONTENT_HEAD_BYTES, detectContent, describeImage, type AssetType, type DetectedContent, type ImageDescription } from "@/lib/assets/content-type";
import { mapConstraintViolation } from "@/lib/assets/lookup";
import { collectStream } from "@/lib/core/streams";
import { readContentHead } from "@/lib/assets/peek";
import type { AssetDraft } from "@/lib/assets/draft";
import { assetContentKey } from "@/lib/assets/storage-keys";
import { config } from "@/lib/core/config";
import { db } from "@/lib/db/client";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import { insertUploadedAsset } from "@/lib/assets/insert";
import { abandonEarlyJudgement, earlyJudgementStored, startEarlyJudgement } from "@/lib/assets/processing/early-judgement";
import { requireFolderInProject } from "@/lib/folders/lookup";
import { ApiError } from "@/lib/core/errors";
import { storage } from "@/lib/storage";
import { assertUploadAllowed, withUploadUnit } from "@/lib/usage/allowance";

export interface ContentInput {
  source: Buffer | Readable;
  declaredType: string | null;
  fileName?: string | null;
}

/**
 * Checks that need no bytes, run before reading content: the folder, the externalId and, when the
 * upload unit is taken only later (multipart uploads), whether the allowance is used up already.
 */
export async function checkDraft(draft: AssetDraft, options: { checkAllowance: boolean }): Promise<void> {
  if (draft.fields.folderId) await requireFolderInProject(draft.projectId, draft.fields.folderId);
  if (draft.fields.externalId) {
    const clash = await db().asset.findFirst({
      where: { projectId: draft.projectId, externalId: draft.fields.externalId },
      select: { id: true },
    });
    if (clash) throw new ApiError("asset/duplicate-external-id");
  }
  if (options.checkAllowance) await assertUploadAllowed(draft.projectId, draft.ownerUserId);
}

export function sizeLimitError(type: AssetType, size: number | null): ApiError | null {
  const { directImageBytes, multipartImageBytes, maxUploadBytes } = config().limits;
  if (size === null) return null;
  if (type === "image" && size >= directImageBytes) {
    return size <= multipartImageBytes
      ? new ApiError("upload/image-requires-multipart")
      : new ApiError("upload/too-large", `Images larger than ${multipartImageBytes} bytes are not accepted.`);
  }
  if (size > maxUploadBytes) return new ApiError("upload/too-large", `Content larger than ${maxUploadBytes} bytes is not accepted.`);
  return null;
}

/** Creates an asset from a single piece of content (inline or raw bytes). */
export async function createAssetFromContent(draft: AssetDraft, content: ContentInput): Promise<AssetRow> {
  await checkDraft(draft, { checkAllowance: false });
  return withUploadUnit(draft.projectId, draft.ownerUserId, () => ingestContent(draft, content));
}

/**
 * Detects, size-checks and stores the content, then inserts the asset. The draft is checked and
 * the caller holds an upload unit.
 */
export async function ingestContent(draft: AssetDraft, content: ContentInput): Promise<AssetRow> {
  const { head, body } = await readContentHead(content.source, CONTENT_HEAD_BYTES);
  const detected = await detectContent(head, content.declaredType, content.fileName);
  const limitError = sizeLimitError(detected.type, Buffer.isBuffer(body) ? body.length : null);
  if (limitError) throw limitError;

  // Images are small enough to hold in memory, and sharp needs the whole file for imageData.
  const payload = detected.type === "image" && !Buffer.isBuffer(body) ? await collectImage(body) : body;
  const assetId = randomUUID();
  // Header facts first: a queue=false image is judged while it is stored (processing/early-judgement.ts).
  const imageData = detected.type === "image" && Buffer.isBuffer(payload) ? await describeImage(payload) : null;
  const early = !draft.queued && imageData !== null && startEarlyJudgement({ projectId: draft.projectId, assetId, bytes: payload as Buffer, fileFormat: detected.mime, imageData });
  try {
    return await storeAndInsert(draft, assetId, payload, detected, imageData, early);
  } catch (error) {
    if (early) abandonEarlyJudgement(assetId);
    throw error;
  }
}

async function storeAndInsert(
  draft: AssetDraft,
  assetId: string,
  payload: Buffer | Readable,
  detected: DetectedContent,
  imageData: ImageDescription | null,
  early: boolean,
): Promise<AssetRow> {
  const key = assetContentKey(draft.projectId, assetId);
  const stored = await storage().put(key, payload, { contentType: detected.mime, maxBytes: config().limits.maxUploadBytes });
  if (stored.sizeInBytes === 0) {
    await storage().delete(key);
    throw new ApiError("upload/empty-content");
  }
  if (early) earlyJudgementStored(assetId, stored.sha256);
  try {
    return await insertUploadedAsset(draft, {
      id: assetId,
      type: detected.type,
      fileFormat: detected.mime,
      fileExtension: detected.extension,
      sizeInBytes: BigInt(stored.sizeInBytes),
      checksums: { sha256: stored.sha256, md5: stored.md5 },
      imageData: imageData ? { ...imageData } : undefined,
      storageId: key,
    });
  } catch (error) {
    await storage().delete(key).catch(() => undefined);
    throw mapConstraintViolation(error);
  }
}

/**
 * Reads a streamed image into memory (sharp needs all of it). Reading goes on up to the multipart
 * limit, so the error can tell "use multipart upload" from "too large for any upload".
 */
async function collectImage(source: Readable): Promise<Buffer> {
  const { multipartImageBytes } = config().limits;
  const bytes = await collectStream(source, multipartImageBytes, () => sizeLimitError("image", multipartImageBytes + 1) as ApiError);
  const limitError = sizeLimitError("image", bytes.length);
  if (limitError) throw limitError;
  return bytes;
}
