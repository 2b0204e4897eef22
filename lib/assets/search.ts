import { z } from "zod";
import { ASSET_TYPES, assetSchema, booleanQuery } from "@/lib/assets/schemas";
import { text } from "@/lib/core/schemas";
import { serializeAsset } from "@/lib/assets/serialize";
import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";

/**
 * Full-text search over a project's assets. The document of an asset is the generated column
 * `assets.search_vector` (see the asset_search migration): name and tags (weight A), description
 * and model labels (B), metadata values (C) and extracted text (D). Name, tags and labels are
 * indexed with both the 'simple' and the 'english' configuration, so exact words (file names,
 * codes, tags) and stemmed natural language ("running dogs" finds "the dog runs") both match.
 */

export const SEARCH_QUERY_MAX = 500;

export const searchAssetsQuery = z.strictObject({
  q: text()
    .trim()
    .min(1)
    .max(SEARCH_QUERY_MAX)
    .describe(
      "Keywords or a description, in web-search syntax: words must all match (stemmed), \"quoted phrases\" match " +
        "as phrases, `or` between words matches either, and a leading `-` excludes a word.",
    ),
  pageIndex: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
  type: z.enum(ASSET_TYPES).optional().describe("Only assets of this type"),
  includeChildren: booleanQuery
    .default(true)
    .describe("false searches only top-level assets; by default extracted children (parentId set) are searched too"),
});
export type SearchAssetsQuery = z.infer<typeof searchAssetsQuery>;

export const searchResultSchema = z
  .object({
    asset: assetSchema,
    rank: z.number().describe("Relevance in [0, 1); higher is better. Comparable only within one query."),
  })
  .meta({ id: "AssetSearchResult" });

export const searchPageSchema = z.object({
  items: z.array(searchResultSchema),
  total: z.number().int(),
  hasMore: z.boolean(),
});

interface MatchRow {
  total: bigint;
  id: string | null;
  rank: number | null;
}

/**
 * One page of matches, best first: rank descending, then newest first, then id (stable pages).
 * The tsquery is the 'english' query OR the 'simple' one; a query of stop words or punctuation only
 * matches nothing.
 */
export async function searchAssets(projectId: string, query: SearchAssetsQuery) {
  const skip = query.pageIndex * query.pageSize;
  const typeFilter = query.type ? Prisma.sql`AND a.type = CAST(${query.type} AS asset_type)` : Prisma.empty;
  const scopeFilter = query.includeChildren ? Prisma.empty : Prisma.sql`AND a.parent_id IS NULL`;
  // ts_rank_cd normalization 32 maps the rank to rank / (rank + 1).
  const rows = await db().$queryRaw<MatchRow[]>`
    WITH search AS (
      SELECT websearch_to_tsquery('english'::regconfig, ${query.q}) || websearch_to_tsquery('simple'::regconfig, ${query.q}) AS tsq
    ),
    matches AS (
      SELECT a.id, a.created_at, ts_rank_cd(a.search_vector, s.tsq, 32) AS rank
      FROM assets a, search s
      WHERE a.project_id = ${projectId}::uuid AND a.search_vector @@ s.tsq ${typeFilter} ${scopeFilter}
    )
    SELECT t.total, p.id::text AS id, p.rank::float8 AS rank
    FROM (SELECT count(*) AS total FROM matches) t
    LEFT JOIN LATERAL (
      SELECT id, rank, created_at FROM matches ORDER BY rank DESC, created_at DESC, id ASC
      LIMIT ${query.pageSize} OFFSET ${skip}
    ) p ON true
    ORDER BY p.rank DESC, p.created_at DESC, p.id ASC`;

  const total = Number(rows[0]?.total ?? 0);
  const page = rows.filter((r): r is MatchRow & { id: string; rank: number } => r.id !== null);
  const assets = page.length === 0 ? [] : await db().asset.findMany({ where: { id: { in: page.map((r) => r.id) } } });
  const byId = new Map(assets.map((a) => [a.id, a]));
  // An asset deleted between the two reads is left out of the page.
  const items = page.flatMap((r) => {
    const row = byId.get(r.id);
    return row ? [{ asset: serializeAsset(row), rank: r.rank }] : [];
  });
  return { items, total, hasMore: skip + page.length < total };
}
