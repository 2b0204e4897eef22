import { collectStream } from "@/lib/assets/peek";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import { storage } from "@/lib/storage";

/** Pipeline input limits. */
export const MAX_TEXT_BYTES = 4 * 1024 * 1024;
export const MAX_EXTRACTED_TEXT_CHARS = 100_000;

export class ContentMissingError extends Error {
  override readonly name = "ContentMissingError";
}

/** The stored bytes of an asset; null when nothing is stored. Larger than `maxBytes` → only the first `maxBytes`. */
export async function readAssetBytes(row: Pick<AssetRow, "id" | "storageId">, maxBytes = Number.POSITIVE_INFINITY): Promise<Buffer | null> {
  if (!row.storageId) return null;
  const object = await storage().get(row.storageId, Number.isFinite(maxBytes) ? { range: { start: 0, end: maxBytes - 1 } } : undefined);
  if (!object) throw new ContentMissingError(`stored content of asset ${row.id} is missing (${row.storageId})`);
  return collectStream(object.body, maxBytes, () => new Error("content larger than expected"));
}
