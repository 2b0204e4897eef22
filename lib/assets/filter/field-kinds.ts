/**
 * Translation of one constraint for each kind of field: equality (with null handling), ordered
 * (dates, sizes), string (with `*` wildcards) and tags.
 */
import type { FilterableAssetField } from "@/lib/assets/filter/fields";
import { filterError, hasWildcard, isNullKeyword, show, type Operator } from "@/lib/assets/filter/lexer";
import type { Constraint } from "@/lib/assets/filter/parser";
import { parseLiteralString, type ValueParser } from "@/lib/assets/filter/values";
import { combine, matchNone, on, type Column, type Where } from "@/lib/assets/filter/where";

/** A value checked and converted for one field; `null` is the unquoted keyword. */
type Parsed<T> = T | null;

export interface FieldSpec {
  operators: readonly Operator[];
  translate(c: Constraint, field: FilterableAssetField): Where;
}

const EQUALITY_OPERATORS: readonly Operator[] = ["==", "!=", "=in=", "=out="];
const ALL_OPERATORS: readonly Operator[] = ["==", "!=", "=gt=", "=ge=", "=lt=", "=le=", "=in=", "=out="];

interface ScalarOptions<T> {
  column: Column;
  nullable: boolean;
  parse: ValueParser<T>;
  /** Merged into every filter object, e.g. `{ mode: "insensitive" }`. */
  extra?: Record<string, unknown>;
}

/** Parses every value of an equality comparison; the `null` keyword only for nullable fields. */
function parseValues<T>(c: Constraint, field: FilterableAssetField, opts: ScalarOptions<T>): Parsed<T>[] {
  return c.values.map((value) => {
    if (!isNullKeyword(value)) return opts.parse(value, field);
    if (!opts.nullable) throw filterError(value.pos, `field ${show(field)} is never null, so null cannot be used here`);
    return null;
  });
}

/**
 * Equality semantics shared by all scalar fields. For nullable fields, `!=` and `=out=` also match
 * assets where the field is null (SQL would otherwise drop them); `== null` is IS NULL.
 */
function equalityWhere<T>(op: Operator, values: Parsed<T>[], opts: ScalarOptions<T>): Where {
  const present = values.filter((v): v is T => v !== null);
  const includesNull = present.length < values.length;
  const { column, nullable, extra } = opts;
  // Case-insensitive matching uses in/notIn even for one value: Prisma renders insensitive `equals`
  // as ILIKE (where % and _ are wildcards) but insensitive `in` as LOWER(col) IN (LOWER(...)).
  const inFilter = (vs: T[]): unknown =>
    extra ? { in: vs, ...extra } : vs.length === 1 ? vs[0] : { in: vs };
  const notInFilter = (vs: T[]): unknown =>
    extra ? { notIn: vs, ...extra } : vs.length === 1 ? { not: vs[0] } : { notIn: vs };

  if (op === "==" || op === "=in=") {
    const parts: Where[] = [];
    if (present.length > 0) parts.push(on(column, inFilter(present)));
    if (includesNull) parts.push(on(column, null));
    return combine("OR", parts);
  }
  // != and =out=
  if (present.length === 0) return on(column, { not: null });
  // `=out=(a,null)`: neither a nor null (both conditions in one filter object are ANDed).
  if (includesNull) return on(column, { notIn: present, ...extra, not: null });
  const notMatching = on(column, notInFilter(present));
  return nullable ? { OR: [on(column, null), notMatching] } : notMatching;
}

export function equalityField<T>(opts: ScalarOptions<T>): FieldSpec {
  return {
    operators: EQUALITY_OPERATORS,
    translate: (c, field) => equalityWhere(c.operator.op, parseValues(c, field, opts), opts),
  };
}

/** Dates and sizes: equality plus ordering comparisons. */
export function orderedField<T>(opts: ScalarOptions<T>): FieldSpec {
  const comparison: Partial<Record<Operator, string>> = { "=gt=": "gt", "=ge=": "gte", "=lt=": "lt", "=le=": "lte" };
  return {
    operators: ALL_OPERATORS,
    translate: (c, field) => {
      const key = comparison[c.operator.op];
      if (key === undefined) return equalityWhere(c.operator.op, parseValues(c, field, opts), opts);
      const value = c.values[0]!;
      if (isNullKeyword(value)) {
        throw filterError(value.pos, `null cannot be compared with ${show(c.operator.raw)}; use ==null or !=null`);
      }
      return on(opts.column, { [key]: opts.parse(value, field) });
    },
  };
}

/** Escapes LIKE metacharacters; Prisma passes contains/startsWith/endsWith operands to LIKE verbatim. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/**
 * String fields: `==`/`!=` accept `*` wildcards (prefix → startsWith, suffix → endsWith, inner pieces →
 * contains, all ANDed); `=in=`/`=out=` compare literally.
 */
export function stringField(opts: { column: Column; nullable: boolean; caseInsensitive: boolean }): FieldSpec {
  const extra = opts.caseInsensitive ? { mode: "insensitive" as const } : undefined;
  const scalar: ScalarOptions<string> = { column: opts.column, nullable: opts.nullable, parse: parseLiteralString, extra };
  return {
    operators: EQUALITY_OPERATORS,
    translate: (c, field) => {
      const value = c.values[0]!;
      const isPattern = (c.operator.op === "==" || c.operator.op === "!=") && !isNullKeyword(value) && hasWildcard(value);
      if (!isPattern) return equalityWhere(c.operator.op, parseValues(c, field, scalar), scalar);
      const matches = patternWhere(value.segments, opts.column, extra);
      if (matches === "any") {
        // `*` alone: any value, i.e. any non-null value; its negation is null (or nothing for name).
        if (c.operator.op === "==") return opts.nullable ? on(opts.column, { not: null }) : {};
        return opts.nullable ? on(opts.column, null) : matchNone();
      }
      if (c.operator.op === "==") return matches;
      return opts.nullable ? { OR: [on(opts.column, null), { NOT: matches }] } : { NOT: matches };
    },
  };
}

/** The condition for a wildcard pattern (never matching null), or "any" when it is only asterisks. */
function patternWhere(segments: string[], column: Column, extra: object | undefined): Where | "any" {
  const first = segments[0]!;
  const last = segments[segments.length - 1]!;
  const inner = segments.slice(1, -1).filter((piece) => piece !== "");
  const base: Record<string, unknown> = {};
  if (first !== "") base.startsWith = escapeLike(first);
  if (last !== "") base.endsWith = escapeLike(last);
  const [firstInner, ...moreInner] = inner;
  if (firstInner !== undefined) base.contains = escapeLike(firstInner);
  if (Object.keys(base).length === 0) return "any";
  const parts = [on(column, { ...base, ...extra }), ...moreInner.map((piece) => on(column, { contains: escapeLike(piece), ...extra }))];
  return combine("AND", parts);
}

export const tagsField: FieldSpec = {
  operators: EQUALITY_OPERATORS,
  translate: (c, field) => {
    const tags = c.values.map((value) => {
      if (isNullKeyword(value)) {
        throw filterError(value.pos, `field "tags" is never null (an asset without tags has an empty list); quote "null" to match a tag named null`);
      }
      return parseLiteralString(value, field);
    });
    switch (c.operator.op) {
      case "==":
        return { tags: { has: tags[0]! } };
      case "!=":
        return { NOT: { tags: { has: tags[0]! } } };
      case "=in=":
        return { tags: { hasSome: tags } };
      default:
        return { NOT: { tags: { hasSome: tags } } };
    }
  },
};
