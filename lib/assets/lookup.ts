import { db } from "@/lib/db/client";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import { ApiError } from "@/lib/core/errors";
import { assertSameProject, type ProjectScope } from "@/lib/auth/authorize";

/** Loads an asset the key may address: 404 when absent, 403 when it belongs to another project. */
export async function requireAsset(key: ProjectScope, assetId: string): Promise<AssetRow> {
  const asset = await db().asset.findUnique({ where: { id: assetId } });
  if (!asset) throw new ApiError("asset/not-found");
  assertSameProject(key, asset.projectId);
  return asset;
}

/** Held assets cannot be changed or deleted through normal asset operations. */
export function assertNotHeld(asset: AssetRow): void {
  if (asset.safetyHold) throw new ApiError("asset/safety-held");
}

/**
 * Database refusals that race past the early checks: the unique (projectId, externalId) index, and
 * the folder foreign key when the folder was deleted in between.
 */
export function mapConstraintViolation(error: unknown): unknown {
  // Prisma's codes, and PostgreSQL's for statements sent through the pg pool.
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "P2002" || code === "23505") return new ApiError("asset/duplicate-external-id");
  if (code === "P2003" || code === "23503") return new ApiError("folder/not-found");
  return error;
}
