import type { AuthenticatedKey } from "@/lib/auth/api-keys";
import { db } from "@/lib/db/client";
import type { Asset as AssetRow } from "@/lib/db/generated/client";
import { ApiError } from "@/lib/http/errors";
import { assertSameProject } from "@/lib/http/params";

/** Loads an asset the key may address: 404 when absent, 403 when it belongs to another project. */
export async function requireAsset(key: AuthenticatedKey, assetId: string): Promise<AssetRow> {
  const asset = await db().asset.findUnique({ where: { id: assetId } });
  if (!asset) throw new ApiError("asset/not-found");
  assertSameProject(key, asset.projectId);
  return asset;
}

/** Held assets cannot be changed or deleted through normal asset operations. */
export function assertNotHeld(asset: AssetRow): void {
  if (asset.safetyHold) throw new ApiError("asset/safety-held");
}

export async function requireProjectOwner(projectId: string): Promise<{ id: string; ownerUserId: string }> {
  const project = await db().project.findUnique({ where: { id: projectId }, select: { id: true, ownerUserId: true } });
  if (!project) throw new ApiError("project/not-found");
  return project;
}

/** Prisma's unique violation on (projectId, externalId) becomes the API's duplicate error. */
export function mapUniqueViolation(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "P2002" ? new ApiError("asset/duplicate-external-id") : error;
}
