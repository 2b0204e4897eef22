import { BUILTIN_LENSES } from "@/lib/cdn/builtin-lenses";
import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { serializeLens } from "@/lib/lenses/lenses";
import { keepContentByDefault } from "@/lib/portal/queue";
import type { PortalLens, PortalLensList } from "@/lib/portal/types";

/**
 * The lenses page's data: the project's own lenses, the built-in ones (projectId null, read-only;
 * a project lens of the same identifier replaces one at the CDN, so it is marked `shadowed`), and
 * images the CDN would serve to the member, for the live preview.
 */
const PREVIEW_ASSETS = 24;

export async function portalLensList(projectId: string): Promise<PortalLensList> {
  const rows = await db().lens.findMany({ where: { projectId }, orderBy: { identifier: "asc" } });
  const own: PortalLens[] = rows.map((row) => ({ ...serializeLens(row), builtIn: false, shadowed: false }));
  const ownIds = new Set(rows.map((row) => row.identifier));
  const builtIn: PortalLens[] = BUILTIN_LENSES.map((lens) => ({
    ...lens,
    id: `builtin:${lens.identifier}`,
    transforms: lens.transforms.map((t) => ({ type: t.type, options: { ...t.options } })),
    createdAt: 0,
    updatedAt: 0,
    builtIn: true,
    shadowed: ownIds.has(lens.identifier),
  }));
  return { lenses: [...own, ...builtIn], previewAssets: await previewAssets(projectId) };
}

/** Approved images with retained content: what the CDN serves (a rejected one would answer 403). */
async function previewAssets(projectId: string): Promise<PortalLensList["previewAssets"]> {
  const keepByDefault = await keepContentByDefault(projectId);
  const rows = await db().asset.findMany({
    where: { projectId, type: "image", status: "approved", storageId: { not: null }, storageDeletedAt: null, safetyHold: { equals: Prisma.DbNull } },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: PREVIEW_ASSETS * 2,
    select: { id: true, name: true, processingOptions: true },
  });
  return rows
    .filter((row) => (row.processingOptions as { keepContentAfterProcessing?: boolean | null } | null)?.keepContentAfterProcessing ?? keepByDefault)
    .slice(0, PREVIEW_ASSETS)
    .map((row) => ({ id: row.id, name: row.name ?? row.id }));
}
