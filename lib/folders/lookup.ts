import { db } from "@/lib/db/client";
import type { Folder as FolderRow } from "@/lib/db/generated/client";
import { ApiError } from "@/lib/http/errors";

/** A folder of this project, or 404 folder/not-found (also for another project's folder id). */
export async function requireFolderInProject(projectId: string, folderId: string): Promise<FolderRow> {
  const folder = await db().folder.findUnique({ where: { id: folderId } });
  if (!folder || folder.projectId !== projectId) throw new ApiError("folder/not-found");
  return folder;
}
