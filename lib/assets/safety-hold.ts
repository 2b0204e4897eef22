import { db } from "@/lib/db/client";
import type { OperatorHold } from "@/lib/assets/field-schemas";
import { Prisma } from "@/lib/db/generated/client";

/**
 * Safety holds restrict an asset suspected of illegal content: it is not delivered and normal asset
 * operations (patch, move, delete) answer 423. Placed by operators (admin CLI, here) and by hash
 * matching in the moderation pipeline (written with the processing outcome); both shapes are the
 * documented `SafetyHold` (field-schemas.ts).
 */
export async function placeSafetyHold(assetId: string, hold: Omit<OperatorHold, "heldAt">) {
  const safetyHold: OperatorHold = { source: hold.source, reason: hold.reason, heldAt: Date.now() };
  const asset = await db().asset.update({ where: { id: assetId }, data: { safetyHold: { ...safetyHold } } }).catch(() => null);
  if (!asset) throw new Error(`Asset ${assetId} not found`);
  return { assetId: asset.id, safetyHold };
}

export async function releaseSafetyHold(assetId: string) {
  const asset = await db().asset.update({ where: { id: assetId }, data: { safetyHold: Prisma.DbNull } }).catch(() => null);
  if (!asset) throw new Error(`Asset ${assetId} not found`);
  return { assetId: asset.id, safetyHold: null };
}
