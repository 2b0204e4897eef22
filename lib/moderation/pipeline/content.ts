import { createWriteStream } from "node:fs";
import path from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { collectStream } from "@/lib/core/streams";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import { withTempDir } from "@/lib/media/tools";
import { storage } from "@/lib/storage";

/** Pipeline input limits. */
export const MAX_TEXT_BYTES = 4 * 1024 * 1024;
export const MAX_EXTRACTED_TEXT_CHARS = 100_000;

export class ContentMissingError extends Error {
  override readonly name = "ContentMissingError";
}

type Stored = Pick<AssetRow, "id" | "storageId">;

async function openContent(row: Stored & { storageId: string }, maxBytes?: number): Promise<Readable> {
  const object = await storage().get(row.storageId, maxBytes === undefined ? undefined : { range: { start: 0, end: maxBytes - 1 } });
  if (!object) throw new ContentMissingError(`stored content of asset ${row.id} is missing (${row.storageId})`);
  return object.body;
}

/** The stored bytes of an asset; null when nothing is stored. Larger than `maxBytes` → only the first `maxBytes`. */
export async function readAssetBytes(row: Stored, maxBytes?: number): Promise<Buffer | null> {
  if (!row.storageId) return null;
  const body = await openContent({ ...row, storageId: row.storageId }, maxBytes);
  return collectStream(body, maxBytes ?? Number.POSITIVE_INFINITY, () => new Error("content larger than expected"));
}

/** Media tools need a file: the stored content is copied to a private temp folder for `fn`. */
export async function withContentFile<T>(row: Stored & Pick<AssetRow, "fileExtension">, fn: (file: string) => Promise<T>): Promise<T> {
  if (!row.storageId) throw new ContentMissingError(`asset ${row.id} has no stored content`);
  const body = await openContent({ ...row, storageId: row.storageId });
  return withTempDir(async (dir) => {
    const file = path.join(dir, `content.${row.fileExtension ?? "bin"}`);
    await pipeline(body, createWriteStream(file));
    return fn(file);
  });
}
