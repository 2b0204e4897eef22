import { randomBytes, randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import { CONTENT_HEAD_BYTES, detectContent, describeImage, type AssetType } from "@/lib/assets/content-type";
import { mapConstraintViolation } from "@/lib/assets/lookup";
import { collectStream } from "@/lib/core/streams";
import { readContentHead } from "@/lib/assets/peek";
import { prismaRunner } from "@/lib/db/sql";
import { enqueueJobs } from "@/lib/jobs/outbox";
import { processingRequest } from "@/lib/assets/processing/request";
import { recordUploadedEvent } from "@/lib/assets/events";
import { draftColumns, type AssetDraft } from "@/lib/assets/draft";
import { checkDraft } from "@/lib/assets/ingest";
import { apiAssetType, dbAssetType } from "@/lib/assets/serialize";
import { assetContentKey, uploadPartKey, uploadPrefix } from "@/lib/assets/storage-keys";
import { config } from "@/lib/core/config";
import { db } from "@/lib/db/client";
import type { Asset as AssetRow, MultipartUpload } from "@/lib/db/generated/client";
import { ApiError, isApiError } from "@/lib/core/errors";
import { storage } from "@/lib/storage";
import { withUploadUnit } from "@/lib/usage/allowance";

/**
 * Multipart upload: parts arrive in order (a re-sent part number replaces that part), each stored as
 * its own object; the final part assembles them into the asset's content. Unfinished uploads expire.
 */
export interface PartInput {
  source: Buffer | Readable;
  declaredType: string | null;
  partNumber?: number;
  isFinal: boolean;
  /** Declared size of this part (variant B `sizeInBytes`), checked against what arrived. */
  sizeInBytes?: number;
}

function maxTotalFor(type: AssetType): number {
  const { multipartImageBytes, maxUploadBytes } = config().limits;
  return type === "image" ? multipartImageBytes : maxUploadBytes;
}

function expiry(): Date {
  return new Date(Date.now() + config().uploadExpirySeconds * 1000);
}

const nonce = () => randomBytes(6).toString("hex");

export async function startMultipartUpload(
  draft: AssetDraft,
  first: PartInput,
  totalSizeInBytes: number | undefined,
): Promise<AssetRow> {
  if ((first.partNumber ?? 1) !== 1) {
    throw new ApiError("upload/part-out-of-order", "A multipart upload starts with part 1.");
  }
  await checkDraft(draft, { checkAllowance: true });
  const { head, body } = await readContentHead(first.source, CONTENT_HEAD_BYTES);
  const detected = await detectContent(head, first.declaredType, draft.fields.name);
  const maxTotal = maxTotalFor(detected.type);
  if (totalSizeInBytes !== undefined && totalSizeInBytes > maxTotal) {
    throw new ApiError("upload/too-large", `totalSizeInBytes exceeds the ${maxTotal}-byte limit for this type.`);
  }
  const assetId = randomUUID();
  const partKey = uploadPartKey(draft.projectId, assetId, 1, nonce());
  const size = await storePart(partKey, body, detected.mime, first, totalSizeInBytes ?? maxTotal, () =>
    sizeOver(totalSizeInBytes, maxTotal),
  );
  if (first.isFinal && totalSizeInBytes !== undefined && size !== totalSizeInBytes) {
    await storage().delete(partKey).catch(() => undefined);
    throw new ApiError("upload/size-mismatch", `The upload has ${size} bytes but totalSizeInBytes was ${totalSizeInBytes}.`);
  }
  let row: AssetRow;
  try {
    row = await db().asset.create({
      data: {
        ...draftColumns(draft),
        id: assetId,
        status: "uploading",
        type: dbAssetType(detected.type),
        fileFormat: detected.mime,
        fileExtension: detected.extension,
        uploadPartsReceived: 1,
        upload: {
          create: {
            contentType: detected.mime,
            totalSizeInBytes: totalSizeInBytes === undefined ? null : BigInt(totalSizeInBytes),
            partSizes: [BigInt(size)],
            partKeys: [partKey],
            expiresAt: expiry(),
          },
        },
      },
    });
  } catch (error) {
    await storage().delete(partKey).catch(() => undefined);
    throw mapConstraintViolation(error);
  }
  return first.isFinal ? completeUpload(row.id) : row;
}

export async function addPart(asset: AssetRow, part: PartInput): Promise<AssetRow> {
  const upload = await requireActiveUpload(asset);
  const received = upload.partKeys.length;
  const partNumber = part.partNumber ?? received + 1;
  if (partNumber > received + 1) {
    throw new ApiError("upload/part-out-of-order", `Expected part ${received + 1} (or a re-send of 1 to ${received}), got ${partNumber}.`);
  }
  const type = apiAssetType(asset.type);
  const maxTotal = maxTotalFor(type);
  const declaredTotal = upload.totalSizeInBytes === null ? undefined : Number(upload.totalSizeInBytes);
  const otherParts = upload.partSizes.reduce((sum, size, i) => (i === partNumber - 1 ? sum : sum + Number(size)), 0);
  const room = (declaredTotal ?? maxTotal) - otherParts;
  const key = uploadPartKey(asset.projectId, asset.id, partNumber, nonce());
  const size = await storePart(key, part.source, upload.contentType, part, room, () => sizeOver(declaredTotal, maxTotal));
  if (part.isFinal && declaredTotal !== undefined && otherParts + size !== declaredTotal) {
    await storage().delete(key).catch(() => undefined);
    throw new ApiError(
      "upload/size-mismatch",
      `The parts add up to ${otherParts + size} bytes but totalSizeInBytes was ${declaredTotal}; the final part was not accepted.`,
    );
  }
  const replaced = await db().$transaction(async (tx) => {
    const [current] = await tx.$queryRaw<{ part_keys: string[]; part_sizes: bigint[]; completing: boolean }[]>`
      SELECT part_keys, part_sizes, completing FROM multipart_uploads WHERE asset_id = ${asset.id}::uuid FOR UPDATE`;
    if (!current || current.completing) throw new ApiError("upload/not-in-progress");
    if (current.part_keys.length !== received) {
      throw new ApiError("upload/part-out-of-order", "Another part arrived at the same time; send parts one after another.");
    }
    const keys = [...current.part_keys];
    const sizes = [...current.part_sizes];
    const old = keys[partNumber - 1];
    keys[partNumber - 1] = key;
    sizes[partNumber - 1] = BigInt(size);
    await tx.multipartUpload.update({
      where: { assetId: asset.id },
      data: {
        partKeys: keys,
        partSizes: sizes,
        expiresAt: expiry(),
        completing: part.isFinal,
      },
    });
    await tx.asset.update({ where: { id: asset.id }, data: { uploadPartsReceived: keys.length } });
    return old;
  }).catch(async (error: unknown) => {
    await storage().delete(key).catch(() => undefined);
    throw error;
  });
  if (replaced) await storage().delete(replaced).catch(() => undefined);
  if (part.isFinal) return completeUpload(asset.id);
  return db().asset.findUniqueOrThrow({ where: { id: asset.id } });
}

async function requireActiveUpload(asset: AssetRow): Promise<MultipartUpload> {
  const upload = await db().multipartUpload.findUnique({ where: { assetId: asset.id } });
  if (asset.status !== "uploading" || !upload || upload.completing) throw new ApiError("upload/not-in-progress");
  if (upload.expiresAt.getTime() <= Date.now()) {
    await discardUpload(asset.projectId, asset.id);
    throw new ApiError("upload/expired");
  }
  return upload;
}

/** Assembles the parts into the asset's content and makes it a normal pending asset. */
async function completeUpload(assetId: string): Promise<AssetRow> {
  // Only the final part gets here: its transaction set `completing` (or the first part was final and
  // nobody knows the asset yet), so no other part of this upload can get in now.
  const upload = await db().multipartUpload.findUnique({
    where: { assetId },
    include: { asset: { include: { project: { select: { ownerUserId: true } } } } },
  });
  if (!upload) throw new ApiError("upload/not-in-progress");
  const { asset } = upload;
  const key = assetContentKey(asset.projectId, asset.id);
  try {
    const row = await withUploadUnit(asset.projectId, asset.project.ownerUserId, async () => {
      const stored = await storage().concat(key, upload.partKeys, { contentType: upload.contentType });
      const imageData = asset.type === "image" ? await describeStoredImage(key) : null;
      return db().$transaction(async (tx) => {
        await tx.multipartUpload.delete({ where: { assetId } });
        const updated = await tx.asset.update({
          where: { id: assetId },
          data: {
            status: "pending",
            sizeInBytes: BigInt(stored.sizeInBytes),
            checksums: { sha256: stored.sha256, md5: stored.md5 },
            imageData: imageData ? { ...imageData } : undefined,
            storageId: key,
            uploadPartsReceived: upload.partKeys.length,
          },
        });
        await recordUploadedEvent(tx, updated);
        await enqueueJobs(prismaRunner(tx), [processingRequest(updated)]);
        return updated;
      });
    });
    await storage().deletePrefix(uploadPrefix(asset.projectId, asset.id)).catch(() => undefined);
    return row;
  } catch (error) {
    // Leave the parts so the client can retry the final part; only the assembled copy goes.
    await storage().delete(key).catch(() => undefined);
    await db().multipartUpload.updateMany({ where: { assetId }, data: { completing: false } });
    throw error;
  }
}

async function describeStoredImage(key: string) {
  const object = await storage().get(key);
  if (!object) return null;
  const bytes = await collectStream(object.body, config().limits.multipartImageBytes, () => new ApiError("upload/too-large"));
  return describeImage(bytes);
}

/** Streams one part to storage within `room` bytes; empty parts and wrong declared sizes are refused. */
async function storePart(
  key: string,
  source: Buffer | Readable,
  contentType: string,
  part: PartInput,
  room: number,
  tooLarge: () => ApiError,
): Promise<number> {
  if (room <= 0) throw tooLarge();
  let stored;
  try {
    stored = await storage().put(key, source, { contentType, maxBytes: room });
  } catch (error) {
    throw isApiError(error) && error.code === "upload/too-large" ? tooLarge() : error;
  }
  const problem =
    stored.sizeInBytes === 0
      ? new ApiError("upload/empty-content")
      : part.sizeInBytes !== undefined && part.sizeInBytes !== stored.sizeInBytes
        ? new ApiError("upload/size-mismatch", `sizeInBytes says ${part.sizeInBytes} but the part has ${stored.sizeInBytes} bytes.`)
        : null;
  if (problem) {
    await storage().delete(key).catch(() => undefined);
    throw problem;
  }
  return stored.sizeInBytes;
}

function sizeOver(declaredTotal: number | undefined, maxTotal: number): ApiError {
  return declaredTotal !== undefined
    ? new ApiError("upload/size-mismatch", `The parts would exceed totalSizeInBytes (${declaredTotal}).`)
    : new ApiError("upload/too-large", `The upload would exceed the ${maxTotal}-byte limit for this type.`);
}

/** Removes an unfinished upload: its parts and its asset record (it never became content). */
export async function discardUpload(projectId: string, assetId: string): Promise<void> {
  await db().asset.deleteMany({ where: { id: assetId, status: "uploading" } });
  await storage().deletePrefix(uploadPrefix(projectId, assetId)).catch(() => undefined);
}

/** Sweeps uploads whose expiry passed; run periodically by the server. */
export async function expireAbandonedUploads(now = new Date()): Promise<number> {
  const expired = await db().multipartUpload.findMany({
    where: { expiresAt: { lt: now } },
    select: { assetId: true, asset: { select: { projectId: true } } },
    take: 500,
  });
  for (const upload of expired) await discardUpload(upload.asset.projectId, upload.assetId);
  return expired.length;
}
