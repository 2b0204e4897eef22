import { z } from "zod";
import { ASSET_STATUSES, ASSET_TYPES, assetSchema, booleanQuery } from "@/lib/assets/schemas";
import { text, uuid } from "@/lib/core/schemas";
import { serializeAsset } from "@/lib/assets/serialize";
import { db } from "@/lib/db/client";
import { Prisma } from "@/lib/db/generated/client";
import { naturalSearch, type RankedId } from "./natural";
import { parseQuery } from "./query";

/**
 * Search over a project's assets, in two modes:
 * - `natural` (default): the query is read as a description (query.ts) and ranked by how well each
 *   asset matches its concepts: detected objects, colours and faces (asset_labels) and text
 *   (natural.ts). An asset matching any concept is a match; those matching more rank higher.
 * - `keywords`: web-search syntax over the search document only; every word must match.
 * The document of an asset is the generated column `assets.search_vector` (see the asset_search
 * migration): name and tags (weight A), description and label words (B), metadata values (C) and
 * extracted text (D), indexed with both the 'simple' and the 'english' configuration, so exact words
 * (file names, codes, tags) and stemmed natural language ("running dogs" finds "the dog runs") match.
 */

export const SEARCH_QUERY_MAX = 500;

export const searchAssetsQuery = z.strictObject({
  q: text()
    .trim()
    .min(1)
    .max(SEARCH_QUERY_MAX)
    .describe(
      "What to find. In `natural` mode a description in plain words (\"two dogs on a beach\", \"red car\", \"puppy\"): " +
        "objects, colours, faces, numbers and other words are matched against what the images show and against the " +
        "assets' text; \"quoted phrases\" match as phrases and a leading `-` excludes a word. In `keywords` mode " +
        "web-search syntax: every word must match, `or` between words matches either.",
    ),
  mode: z
    .enum(["natural", "keywords"])
    .default("natural")
    .describe("`natural` (default) ranks assets by how many of the description's concepts they match; `keywords` needs every word"),
  pageIndex: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
  type: z.enum(ASSET_TYPES).optional().describe("Only assets of this type"),
  status: z.enum(ASSET_STATUSES).optional().describe("Only assets with this status"),
  folderId: uuid.optional().describe("Only assets directly in this folder"),
  includeChildren: booleanQuery
    .default(true)
    .describe("false searches only top-level assets; by default extracted children (parentId set) are searched too"),
});
export type SearchAssetsQuery = z.infer<typeof searchAssetsQuery>;

export const searchResultSchema = z
  .object({
    asset: assetSchema,
    rank: z.number().describe("Relevance in [0, 1]; higher is better. Comparable only within one query and mode."),
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

/** One page of matches, best first: rank descending, then newest first, then id (stable pages). */
export async function searchAssets(projectId: string, query: SearchAssetsQuery) {
  const skip = query.pageIndex * query.pageSize;
  const { total, page } =
    query.mode === "natural"
      ? await naturalSearch(
          projectId,
          parseQuery(query.q),
          { type: query.type ?? null, status: query.status ?? null, folderId: query.folderId ?? null, includeChildren: query.includeChildren },
          { limit: query.pageSize, offset: skip },
        )
      : await keywordSearch(projectId, query, skip);
  const assets = page.length === 0 ? [] : await db().asset.findMany({ where: { id: { in: page.map((r) => r.id) } } });
  const byId = new Map(assets.map((a) => [a.id, a]));
  // An asset deleted between the two reads is left out of the page.
  const items = page.flatMap((r) => {
    const row = byId.get(r.id);
    return row ? [{ asset: serializeAsset(row), rank: r.rank }] : [];
  });
  return { items, total, hasMore: skip + page.length < total };
}

/**
 * Every word must match. The tsquery is the 'english' query OR the 'simple' one; a query of stop
 * words or punctuation only matches nothing.
 */
async function keywordSearch(projectId: string, query: SearchAssetsQuery, skip: number): Promise<{ total: number; page: RankedId[] }> {
  const typeFilter = query.type ? Prisma.sql`AND a.type = CAST(${query.type} AS asset_type)` : Prisma.empty;
  const statusFilter = query.status ? Prisma.sql`AND a.status = CAST(${query.status} AS asset_status)` : Prisma.empty;
  const folderFilter = query.folderId ? Prisma.sql`AND a.folder_id = ${query.folderId}::uuid` : Prisma.empty;
  const scopeFilter = query.includeChildren ? Prisma.empty : Prisma.sql`AND a.parent_id IS NULL`;
  // ts_rank_cd normalization 32 maps the rank to rank / (rank + 1).
  const rows = await db().$queryRaw<MatchRow[]>`
    WITH search AS (
      SELECT websearch_to_tsquery('english'::regconfig, ${query.q}) || websearch_to_tsquery('simple'::regconfig, ${query.q}) AS tsq
    ),
    matches AS (
      SELECT a.id, a.created_at, ts_rank_cd(a.search_vector, s.tsq, 32) AS rank
      FROM assets a, search s
      WHERE a.project_id = ${projectId}::uuid AND a.search_vector @@ s.tsq ${typeFilter} ${statusFilter} ${folderFilter} ${scopeFilter}
    )
    SELECT t.total, p.id::text AS id, p.rank::float8 AS rank
    FROM (SELECT count(*) AS total FROM matches) t
    LEFT JOIN LATERAL (
      SELECT id, rank, created_at FROM matches ORDER BY rank DESC, created_at DESC, id ASC
      LIMIT ${query.pageSize} OFFSET ${skip}
    ) p ON true
    ORDER BY p.rank DESC, p.created_at DESC, p.id ASC`;

  const total = Number(rows[0]?.total ?? 0);
  return { total, page: rows.filter((r): r is MatchRow & { id: string; rank: number } => r.id !== null) };
}
