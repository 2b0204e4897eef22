import type { Permission } from "@/lib/auth/permissions";
import type { AuthenticatedKey } from "@/lib/auth/types";
import { ApiError } from "@/lib/core/errors";
import { db } from "@/lib/db/client";

/**
 * The one authorisation module: every API route (through handle()) and every future portal action
 * asks here whether an actor may touch a project and do an operation.
 */

/** 404 when the project does not exist, 403 when it exists but belongs to another key's project. */
export async function assertProjectAccess(key: AuthenticatedKey, projectId: string): Promise<void> {
  if (projectId === key.projectId) return;
  const exists = await db().project.findUnique({ where: { id: projectId }, select: { id: true } });
  throw new ApiError(exists ? "auth/project-mismatch" : "project/not-found");
}

/** For resources addressed by their own id: they must belong to the key's project. */
export function assertSameProject(key: AuthenticatedKey, projectId: string): void {
  if (projectId !== key.projectId) throw new ApiError("auth/project-mismatch");
}

/** 403 unless the key was granted `permission`. */
export function assertPermission(key: AuthenticatedKey, permission: Permission | undefined): void {
  if (permission && !key.permissions.includes(permission)) {
    throw new ApiError("auth/insufficient-permissions", `This API key lacks the "${permission}" permission.`);
  }
}
