import { findHoldMatch, DEFAULT_MAX_DISTANCE } from "../hashing/lists";
import { imageHashPair } from "../hashing/phash";
import type { HashListHoldFinding } from "@/lib/assets/schemas";
import { errorMessage } from "@/lib/core/errors";

/**
 * What a hash-list match found: becomes the asset's safety hold (reason and evidence). Its shape is
 * the documented `HashListSafetyHold` of the Asset (lib/assets/field-schemas.ts), less `heldAt`.
 */
export type HoldFinding = HashListHoldFinding;

export type HashCheck = { ok: true; finding: HoldFinding | null } | { ok: false; error: string };

/**
 * Matches an image's pHash and dHash against every hash list with the `hold` action; undecodable
 * image data comes back as `ok: false` (the caller reports the image as not analysed).
 */
export async function checkHashLists(image: Buffer, where = "image"): Promise<HashCheck> {
  let hashes: string[];
  try {
    hashes = await imageHashPair(image);
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  }
  return { ok: true, finding: await matchHold(hashes, where) };
}

/** The same for frames and document images, whose classifier part already reports an undecodable image. */
export async function findHashHold(image: Buffer, where = "image"): Promise<HoldFinding | null> {
  const check = await checkHashLists(image, where);
  return check.ok ? check.finding : null;
}

async function matchHold(hashes: string[], where: string): Promise<HoldFinding | null> {
  const match = await findHoldMatch(hashes, DEFAULT_MAX_DISTANCE);
  if (!match) return null;
  return {
    reason: `Perceptual hash matched hash list "${match.list.name}"${match.label ? ` (${match.label})` : ""} at distance ${match.distance}`,
    source: "hash-list",
    list: match.list.name,
    label: match.label,
    hash: match.matchedHash,
    distance: match.distance,
    where,
  };
}
