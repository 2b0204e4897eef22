import { findMatches, DEFAULT_MAX_DISTANCE } from "../hashing/lists";
import { imageHashPair } from "../hashing/phash";

/** What a hash-list match found: becomes the asset's safety hold (reason and evidence). */
export interface HoldFinding {
  reason: string;
  source: "hash-list";
  list: string;
  label: string | null;
  hash: string;
  distance: number;
  /** Where in the asset: "image", or a video frame time. */
  where: string;
}

/** Matches an image's pHash and dHash against every hash list with the `hold` action. */
export async function findHashHold(image: Buffer, where = "image"): Promise<HoldFinding | null> {
  let hashes: string[];
  try {
    hashes = await imageHashPair(image);
  } catch {
    return null; // undecodable image data: nothing to match (the classifier reports it)
  }
  for (const hash of hashes) {
    const match = (await findMatches(hash, DEFAULT_MAX_DISTANCE)).find((m) => m.list.action === "hold");
    if (match) {
      return {
        reason: `Perceptual hash matched hash list "${match.list.name}"${match.label ? ` (${match.label})` : ""} at distance ${match.distance}`,
        source: "hash-list",
        list: match.list.name,
        label: match.label,
        hash,
        distance: match.distance,
        where,
      };
    }
  }
  return null;
}
