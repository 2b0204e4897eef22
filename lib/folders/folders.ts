import { db } from "@/lib/db/client";
import type { Folder as FolderRow, Prisma } from "@/lib/db/generated/client";
import { requireFolderInProject } from "@/lib/folders/lookup";
import type { ApiFolder } from "@/lib/folders/schemas";
import { ApiError } from "@/lib/core/errors";
import { assertSameProject, type ProjectScope } from "@/lib/auth/authorize";

type Tx = Prisma.TransactionClient;

/** The Folder object of the API, typed by its response schema. */
export function serializeFolder(row: FolderRow): ApiFolder {
  return {
    id: row.id,
    projectId: row.projectId,
    parentId: row.parentId,
    name: row.name,
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
  };
}

/**
 * Folder changes of one project run one at a time (a transaction-scoped advisory lock), so the
 * sibling-name and cycle rules hold under concurrent requests without extra constraints.
 */
async function inProjectLock<T>(projectId: string, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db().$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(7402, hashtext(${projectId}))`;
    return work(tx);
  });
}

async function assertNameFree(tx: Tx, projectId: string, parentId: string | null, name: string, exceptId?: string) {
  const clash = await tx.folder.findFirst({
    where: { projectId, parentId, name, ...(exceptId ? { NOT: { id: exceptId } } : {}) },
    select: { id: true },
  });
  if (clash) throw new ApiError("folder/duplicate-name", `A folder named "${name}" already exists in this parent folder.`);
}

export async function requireFolder(key: ProjectScope, folderId: string): Promise<FolderRow> {
  const folder = await db().folder.findUnique({ where: { id: folderId } });
  if (!folder) throw new ApiError("folder/not-found");
  assertSameProject(key, folder.projectId);
  return folder;
}

export async function listFolders(projectId: string) {
  const rows = await db().folder.findMany({ where: { projectId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  return { folders: rows.map(serializeFolder) };
}

export async function createFolder(projectId: string, input: { name: string; parentId?: string | null }) {
  const parentId = input.parentId ?? null;
  const row = await inProjectLock(projectId, async (tx) => {
    if (parentId) await requireFolderInProject(projectId, parentId, tx);
    await assertNameFree(tx, projectId, parentId, input.name);
    return tx.folder.create({ data: { projectId, parentId, name: input.name } });
  });
  return serializeFolder(row);
}

export async function renameFolder(found: FolderRow, name: string | undefined) {
  if (name === undefined || name === found.name) return serializeFolder(found);
  const row = await inProjectLock(found.projectId, async (tx) => {
    const folder = await reload(tx, found);
    if (name === folder.name) return folder;
    await assertNameFree(tx, folder.projectId, folder.parentId, name, folder.id);
    return tx.folder.update({ where: { id: folder.id }, data: { name } });
  });
  return serializeFolder(row);
}

export async function deleteFolder(found: FolderRow) {
  await inProjectLock(found.projectId, async (tx) => {
    const folder = await reload(tx, found);
    const [subfolders, assets] = await Promise.all([
      tx.folder.count({ where: { parentId: folder.id } }),
      tx.asset.count({ where: { folderId: folder.id } }),
    ]);
    if (subfolders + assets > 0) {
      throw new ApiError("folder/not-empty", `The folder contains ${subfolders} folder(s) and ${assets} asset(s).`);
    }
    // An asset may have been put into the folder without the lock since the count: the foreign key
    // (ON DELETE RESTRICT) refuses the delete, which is the same rule.
    await tx.folder.delete({ where: { id: folder.id } }).catch((error: unknown) => {
      if ((error as { code?: string }).code === "P2003") throw new ApiError("folder/not-empty");
      throw error;
    });
  });
  return {};
}

export async function moveFolder(found: FolderRow, parentId: string | null) {
  const row = await inProjectLock(found.projectId, async (tx) => {
    const folder = await reload(tx, found);
    if (parentId !== null) {
      await requireFolderInProject(folder.projectId, parentId, tx);
      if (await isSelfOrDescendant(tx, folder.id, parentId)) throw new ApiError("folder/parent-cycle");
    }
    if (parentId === folder.parentId) return folder;
    await assertNameFree(tx, folder.projectId, parentId, folder.name, folder.id);
    return tx.folder.update({ where: { id: folder.id }, data: { parentId } });
  });
  return serializeFolder(row);
}

/**
 * The folder as it is now, read under the project lock: a concurrent request may have renamed, moved
 * or deleted it since it was loaded, and the rules must be checked against its current state.
 */
async function reload(tx: Tx, folder: FolderRow): Promise<FolderRow> {
  const current = await tx.folder.findUnique({ where: { id: folder.id } });
  if (!current) throw new ApiError("folder/not-found");
  return current;
}

/** True when `candidateId` is `folderId` itself or lies below it. */
async function isSelfOrDescendant(tx: Tx, folderId: string, candidateId: string): Promise<boolean> {
  const rows = await tx.$queryRaw<{ found: boolean }[]>`
    WITH RECURSIVE below AS (
      SELECT id FROM folders WHERE id = ${folderId}::uuid
      UNION ALL
      SELECT f.id FROM folders f JOIN below b ON f.parent_id = b.id
    )
    SELECT EXISTS (SELECT 1 FROM below WHERE id = ${candidateId}::uuid) AS found`;
  return rows[0]?.found ?? false;
}
