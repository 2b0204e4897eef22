/**
 * RSQL (FIQL-style) filters for asset listings: `?filter=status==approved;createdAt=ge=2024-05-01`.
 *
 * Three stages: a tokenizer (lexer.ts; character positions kept for error messages), a recursive-descent
 * parser producing a small AST (parser.ts), and a per-field translation into a Prisma `AssetWhereInput`
 * (translate.ts, with the field kinds in field-kinds.ts and the value parsers in values.ts). Every
 * problem is reported as `ApiError("request/validation-failed")` with a message naming the 1-based
 * position. The grammar and field semantics are documented for API users in docs/filter-grammar.md —
 * keep the two in sync.
 */
import type { Prisma } from "@/lib/db/generated/client";
import { ApiError } from "@/lib/core/errors";
import type { FilterableAssetField } from "@/lib/assets/filter/fields";
import { ASSET_FILTER_LIMITS } from "@/lib/assets/filter/limits";
import { parseAst } from "@/lib/assets/filter/parser";
import { translateNode } from "@/lib/assets/filter/translate";

export { FILTERABLE_ASSET_FIELDS, type FilterableAssetField } from "@/lib/assets/filter/fields";
export { ASSET_FILTER_LIMITS } from "@/lib/assets/filter/limits";

export interface CompiledAssetFilter {
  /** Prisma condition; `{}` when the filter is empty. */
  where: Prisma.AssetWhereInput;
  /** Fields named anywhere in the filter. */
  fields: ReadonlySet<FilterableAssetField>;
}

/**
 * Parses and validates a filter in one pass, returning the Prisma condition and the fields it mentions.
 * An absent, empty or all-whitespace filter means "no filter".
 * @throws ApiError("request/validation-failed") with a positioned message for any invalid filter.
 */
export function compileAssetFilter(filter: string | undefined | null): CompiledAssetFilter {
  if (filter == null || filter.trim() === "") return { where: {}, fields: new Set() };
  if (filter.length > ASSET_FILTER_LIMITS.maxLength) {
    throw new ApiError(
      "request/validation-failed",
      `Invalid filter: the filter is ${filter.length} characters long; the maximum is ${ASSET_FILTER_LIMITS.maxLength}.`,
    );
  }
  const ast = parseAst(filter);
  const fields = new Set<FilterableAssetField>();
  const where = translateNode(ast, fields);
  return { where, fields };
}

/** The Prisma condition for a filter (see {@link compileAssetFilter}). */
export function parseAssetFilter(filter: string | undefined | null): Prisma.AssetWhereInput {
  return compileAssetFilter(filter).where;
}

/**
 * Whether the filter names `field` in any comparison (e.g. the list endpoint shows only top-level
 * assets unless the filter mentions `parentId`). Validates the whole filter, so an invalid filter
 * throws the same error as {@link parseAssetFilter}.
 */
export function mentionsField(filter: string | undefined | null, field: FilterableAssetField): boolean {
  return compileAssetFilter(filter).fields.has(field);
}
