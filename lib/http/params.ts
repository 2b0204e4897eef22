import type { AuthenticatedKey } from "@/lib/auth/api-keys";
import { db } from "@/lib/db/client";
import { ApiError, type ErrorCode } from "@/lib/http/errors";
import { isUuid } from "@/lib/http/uuid";

/** A malformed id names no resource, so it gets the resource's not-found code. */
const NOT_FOUND_BY_PARAM: Record<string, ErrorCode> = {
  projectId: "project/not-found",
  assetId: "asset/not-found",
  folderId: "folder/not-found",
  batchId: "batch/not-found",
};

export function checkPathParams(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value !== "string") continue;
    const notFound = NOT_FOUND_BY_PARAM[name];
    if (notFound && !isUuid(value)) throw new ApiError(notFound);
    params[name] = notFound ? value.toLowerCase() : value;
  }
  return params;
}

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
