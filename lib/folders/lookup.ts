import { db, type Db } from "@/lib/db/client";
import type { Folder as FolderRow } from "@/lib/db/generated/client";
import { ApiError } from "@/lib/core/errors";

/**
 * A folder of this project, or 404 folder/not-found (also for another project's folder id). Inside a
 * transaction pass its client: a second pool connection taken while holding one can starve the pool.
 */
export async function requireFolderInProject(
  projectId: string,
  folderId: string,
  client: Pick<Db, "folder"> = db(),
): Promise<FolderRow> {
  const folder = await client.folder.findUnique({ where: { id: folderId } });
  if (!folder || folder.projectId !== projectId) throw new ApiError("folder/not-found");
  return folder;
}
