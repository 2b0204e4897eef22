import { compileAssetFilter } from "@/lib/assets/filter";
import type { ListAssetsQuery } from "@/lib/assets/schemas";
import { serializeAsset } from "@/lib/assets/serialize";
import { db } from "@/lib/db/client";
import type { Prisma } from "@/lib/db/generated/client";

/** Sort keys of the list endpoint; `id` breaks ties so pages never overlap. */
function orderBy(sort: ListAssetsQuery["sort"]): Prisma.AssetOrderByWithRelationInput[] {
  const descending = sort.startsWith("-");
  const field = (descending ? sort.slice(1) : sort) as "createdAt" | "updatedAt" | "name" | "sizeInBytes";
  const direction = descending ? "desc" : "asc";
  return [{ [field]: direction }, { id: direction }];
}

/**
 * The paginated list. Only top-level assets (parentId null) are listed unless the filter names
 * `parentId`; children are listed under their parent.
 */
export async function listAssets(projectId: string, query: ListAssetsQuery) {
  const filter = compileAssetFilter(query.filter);
  const scope: Prisma.AssetWhereInput = filter.fields.has("parentId") ? {} : { parentId: null };
  const where: Prisma.AssetWhereInput = { AND: [{ projectId }, scope, filter.where] };
  const skip = query.pageIndex * query.pageSize;
  const [total, rows] = await db().$transaction([
    db().asset.count({ where }),
    db().asset.findMany({ where, orderBy: orderBy(query.sort), skip, take: query.pageSize }),
  ]);
  return { items: rows.map(serializeAsset), total, hasMore: skip + rows.length < total };
}

export async function listChildren(parentId: string, pageIndex: number, pageSize: number) {
  const where = { parentId };
  const skip = pageIndex * pageSize;
  const [total, rows] = await db().$transaction([
    db().asset.count({ where }),
    db().asset.findMany({ where, orderBy: [{ createdAt: "asc" }, { id: "asc" }], skip, take: pageSize }),
  ]);
  return { items: rows.map(serializeAsset), total, hasMore: skip + rows.length < total };
}
