import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";

/**
 * Safety holds restrict an asset suspected of illegal content: it is not delivered and normal asset
 * operations (patch, move, delete) answer 423. Placed by operators (admin CLI) and, later, by hash
 * matching in the moderation pipeline.
 */
export interface SafetyHold {
  reason: string;
  source: string;
  heldAt: number;
}

export async function placeSafetyHold(assetId: string, hold: { reason: string; source: string }) {
  const safetyHold: SafetyHold = { reason: hold.reason, source: hold.source, heldAt: Date.now() };
  const asset = await db().asset.update({ where: { id: assetId }, data: { safetyHold: { ...safetyHold } } }).catch(() => null);
  if (!asset) throw new Error(`Asset ${assetId} not found`);
  return { assetId: asset.id, safetyHold };
}

export async function releaseSafetyHold(assetId: string) {
  const asset = await db().asset.update({ where: { id: assetId }, data: { safetyHold: Prisma.DbNull } }).catch(() => null);
  if (!asset) throw new Error(`Asset ${assetId} not found`);
  return { assetId: asset.id, safetyHold: null };
}
