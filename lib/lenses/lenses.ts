import { db } from "@/lib/db/client";
import { Prisma, type Lens as LensRow } from "@/lib/db/generated/client";
import type { ApiLens, EnsureLensInput, LensType } from "@/lib/lenses/schemas";
import { ApiError } from "@/lib/core/errors";

type Tx = Prisma.TransactionClient;

/** The Lens object of the API, typed by its response schema; `type` and `transforms` are stored from a validated body. */
export function serializeLens(row: LensRow): ApiLens {
  return {
    id: row.id,
    projectId: row.projectId,
    userId: row.userId,
    version: row.version,
    identifier: row.identifier,
    name: row.name,
    description: row.description,
    type: row.type as LensType,
    active: row.active,
    transforms: (row.transforms ?? null) as ApiLens["transforms"],
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
  };
}

/**
 * Creates the lens when absent; otherwise updates it only with a greater version (the version is
 * part of the CDN cache key, so a definition never changes under the same version).
 */
async function ensureOne(tx: Tx, projectId: string, input: EnsureLensInput): Promise<LensRow> {
  // Serialises concurrent ensures of one identifier, so two writers cannot both pass the version check.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(7403, hashtext(${`${projectId}/${input.identifier}`}))`;
  const current = await tx.lens.findUnique({ where: { projectId_identifier: { projectId, identifier: input.identifier } } });
  const data = {
    name: input.name,
    description: input.description ?? null,
    type: input.type,
    active: input.active,
    transforms: input.transforms ? (input.transforms as Prisma.InputJsonValue) : Prisma.DbNull,
    version: input.version,
  };
  if (!current) return tx.lens.create({ data: { ...data, projectId, identifier: input.identifier } });
  if (input.version <= current.version) {
    throw new ApiError(
      "lens/version-conflict",
      `Lens "${input.identifier}" is at version ${current.version}; an update needs a greater version (got ${input.version}).`,
    );
  }
  return tx.lens.update({ where: { id: current.id }, data });
}

export async function ensureLens(projectId: string, input: EnsureLensInput) {
  return { lens: serializeLens(await db().$transaction((tx) => ensureOne(tx, projectId, input))) };
}

/** All or nothing: one conflicting lens leaves every lens of the request unchanged. */
export async function ensureLenses(projectId: string, inputs: EnsureLensInput[]) {
  const rows = await db().$transaction(async (tx) => {
    const done: LensRow[] = [];
    for (const input of [...inputs].sort((a, b) => a.identifier.localeCompare(b.identifier))) done.push(await ensureOne(tx, projectId, input));
    return done;
  });
  const byIdentifier = new Map(rows.map((row) => [row.identifier, row]));
  return { lenses: inputs.map((input) => serializeLens(byIdentifier.get(input.identifier) as LensRow)) };
}
