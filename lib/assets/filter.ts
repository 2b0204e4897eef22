/**
 * RSQL (FIQL-style) filters for asset listings: `?filter=status==approved;createdAt=ge=2024-05-01`.
 *
 * Three stages: a tokenizer (character positions kept for error messages), a recursive-descent parser
 * producing a small AST, and a per-field translation into a Prisma `AssetWhereInput`. Every problem is
 * reported as `ApiError("request/validation-failed")` with a message naming the 1-based position.
 * The grammar and field semantics are documented for API users in docs/filter-grammar.md — keep the two
 * in sync.
 *
 * Imports are relative (not `@/`) so that the module and its tests run without alias configuration.
 */
import type { Prisma } from "@/lib/db/generated/client";
import type { AssetStatus, AssetType, ModerationAction, Visibility } from "@/lib/db/generated/enums";
import { ApiError } from "@/lib/http/errors";

// ---------------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------------

/** Selector names accepted in filters (the API's camelCase asset field names). */
export const FILTERABLE_ASSET_FIELDS = [
  "status",
  "type",
  "visibility",
  "moderationAction",
  "folderId",
  "parentId",
  "externalId",
  "name",
  "fileFormat",
  "fileExtension",
  "createdAt",
  "updatedAt",
  "sizeInBytes",
  "tags",
  "flagged",
] as const;

export type FilterableAssetField = (typeof FILTERABLE_ASSET_FIELDS)[number];

/** Complexity caps; exceeding one is a validation error. */
export const ASSET_FILTER_LIMITS = {
  /** Characters in the (URL-decoded) filter string. */
  maxLength: 2000,
  /** Comparisons (`field op value`) in one filter. */
  maxConstraints: 50,
  /** Parenthesis nesting depth. */
  maxDepth: 10,
  /** Values in one `=in=` / `=out=` list. */
  maxListValues: 100,
} as const;

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
  const ast = new Parser(tokenize(filter)).parseFilter();
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

// ---------------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------------

/** `pos` is a 0-based string index; messages show it 1-based. */
function filterError(pos: number, message: string): ApiError {
  return new ApiError("request/validation-failed", `Invalid filter at position ${pos + 1}: ${message}`);
}

const show = (text: string): string => JSON.stringify(text);

// ---------------------------------------------------------------------------------------------------
// Tokenizer
// ---------------------------------------------------------------------------------------------------

type Operator = "==" | "!=" | "=gt=" | "=ge=" | "=lt=" | "=le=" | "=in=" | "=out=";

const NAMED_OPERATORS: Record<string, Operator> = {
  "==": "==",
  "!=": "!=",
  "=gt=": "=gt=",
  "=ge=": "=ge=",
  "=lt=": "=lt=",
  "=le=": "=le=",
  "=in=": "=in=",
  "=out=": "=out=",
  ">": "=gt=",
  ">=": "=ge=",
  "<": "=lt=",
  "<=": "=le=",
};

const OPERATOR_LIST = "==, !=, =gt= (>), =ge= (>=), =lt= (<), =le= (<=), =in=, =out=";

interface ValueToken {
  kind: "value";
  pos: number;
  /** Source text as written (for messages). */
  raw: string;
  /** Value after unquoting and unescaping. */
  text: string;
  quoted: boolean;
  /** `text` split at unescaped `*` wildcards (a single element when there are none). */
  segments: string[];
}

interface OperatorToken {
  kind: "operator";
  pos: number;
  raw: string;
  op: Operator;
}

type Token = { kind: "(" | ")" | ";" | "," | "end"; pos: number } | OperatorToken | ValueToken;

const WHITESPACE = /\s/;
/** Characters that end an unquoted value (besides whitespace). */
const RESERVED = new Set(["'", '"', "(", ")", ";", ",", "=", "!", "<", ">"]);
/** C0 controls and DEL, except tab/newline/CR (whitespace). NUL would also make PostgreSQL fail. */
function isControlChar(ch: string): boolean {
  const code = ch.charCodeAt(0);
  return (code < 0x20 && ch !== "\t" && ch !== "\n" && ch !== "\r") || code === 0x7f;
}

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i]!;
    if (WHITESPACE.test(ch)) {
      i++;
    } else if (ch === "(" || ch === ")" || ch === ";" || ch === ",") {
      tokens.push({ kind: ch, pos: i });
      i++;
    } else if (ch === "=" || ch === "!" || ch === "<" || ch === ">") {
      const token = readOperator(input, i);
      tokens.push(token);
      i += token.raw.length;
    } else if (ch === "'" || ch === '"') {
      const token = readQuoted(input, i);
      tokens.push(token);
      i += token.raw.length;
    } else if (isControlChar(ch)) {
      throw filterError(i, "control characters are not allowed");
    } else {
      let end = i;
      while (end < input.length && !WHITESPACE.test(input[end]!) && !RESERVED.has(input[end]!)) {
        if (isControlChar(input[end]!)) throw filterError(end, "control characters are not allowed");
        end++;
      }
      const text = input.slice(i, end);
      tokens.push({ kind: "value", pos: i, raw: text, text, quoted: false, segments: text.split("*") });
      i = end;
    }
  }
  tokens.push({ kind: "end", pos: input.length });
  return tokens;
}

function readOperator(input: string, pos: number): OperatorToken {
  const named = /^=[A-Za-z]*=/.exec(input.slice(pos, pos + 12));
  const raw = named
    ? named[0]
    : input.startsWith("!=", pos) || input.startsWith(">=", pos) || input.startsWith("<=", pos)
      ? input.slice(pos, pos + 2)
      : input[pos]!;
  const op = NAMED_OPERATORS[raw.toLowerCase()];
  if (op) return { kind: "operator", pos, raw, op };
  if (raw === "=" || raw === "!") {
    throw filterError(pos, `${show(raw)} is not a comparison operator; use one of ${OPERATOR_LIST}`);
  }
  throw filterError(pos, `unknown operator ${show(raw)}; use one of ${OPERATOR_LIST}`);
}

/** Reads a single- or double-quoted value; a backslash makes the next character literal. */
function readQuoted(input: string, start: number): ValueToken {
  const quote = input[start]!;
  const segments: string[] = [];
  let current = "";
  let i = start + 1;
  for (;;) {
    if (i >= input.length) {
      throw filterError(start, `quoted value is not closed; add the closing ${quote}`);
    }
    const ch = input[i]!;
    if (isControlChar(ch)) throw filterError(i, "control characters are not allowed");
    if (ch === quote) break;
    if (ch === "\\") {
      const next = input[i + 1];
      if (next === undefined) throw filterError(i, "a backslash must be followed by the character it escapes");
      if (isControlChar(next)) throw filterError(i + 1, "control characters are not allowed");
      current += next;
      i += 2;
    } else if (ch === "*") {
      segments.push(current);
      current = "";
      i++;
    } else {
      current += ch;
      i++;
    }
  }
  segments.push(current);
  const raw = input.slice(start, i + 1);
  return { kind: "value", pos: start, raw, text: segments.join("*"), quoted: true, segments };
}

// ---------------------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------------------

interface Constraint {
  kind: "constraint";
  selector: ValueToken;
  operator: OperatorToken;
  /** Values; one for a plain argument, one or more for a parenthesised list. */
  values: ValueToken[];
  /** Position of the list's "(", or null for a single value. */
  listPos: number | null;
}

type FilterNode = { kind: "and" | "or"; children: FilterNode[] } | Constraint;

function describeToken(token: Token): string {
  switch (token.kind) {
    case "end":
      return "the end of the filter";
    case "value":
      return token.quoted ? `the quoted value ${token.raw}` : show(token.raw);
    case "operator":
      return `the operator ${show(token.raw)}`;
    default:
      return show(token.kind);
  }
}

/**
 * or := and ((',' | ' or ') and)*
 * and := constraint ((';' | ' and ') constraint)*
 * constraint := '(' or ')' | selector operator arguments
 */
class Parser {
  private index = 0;
  private constraintCount = 0;

  constructor(private readonly tokens: Token[]) {}

  parseFilter(): FilterNode {
    const node = this.parseOr(0);
    const next = this.peek();
    if (next.kind !== "end") {
      if (next.kind === ")") throw filterError(next.pos, `")" has no matching "("`);
      const prev = this.previous();
      const afterSpace = prev.kind === "value" && prev.pos + prev.raw.length < next.pos;
      const hint = next.kind === "value" && afterSpace ? '; values containing spaces must be quoted, e.g. name=="my file.png"' : "";
      throw filterError(next.pos, `expected ";", ",", "and", "or" or the end of the filter but found ${describeToken(next)}${hint}`);
    }
    return node;
  }

  private peek(): Token {
    return this.tokens[this.index]!; // the token list always ends with "end", which is never consumed
  }

  private previous(): Token {
    return this.tokens[this.index - 1] ?? this.peek();
  }

  private advance(): Token {
    const token = this.peek();
    if (token.kind !== "end") this.index++;
    return token;
  }

  /** `;`/`and` or `,`/`or` (the word forms are case-insensitive and must stand alone). */
  private atLogical(symbol: ";" | ","): boolean {
    const token = this.peek();
    if (token.kind === symbol) return true;
    return token.kind === "value" && !token.quoted && token.text.toLowerCase() === (symbol === ";" ? "and" : "or");
  }

  private parseOr(depth: number): FilterNode {
    const children = [this.parseAnd(depth)];
    while (this.atLogical(",")) {
      this.advance();
      children.push(this.parseAnd(depth));
    }
    return children.length === 1 ? children[0]! : { kind: "or", children };
  }

  private parseAnd(depth: number): FilterNode {
    const children = [this.parseConstraint(depth)];
    while (this.atLogical(";")) {
      this.advance();
      children.push(this.parseConstraint(depth));
    }
    return children.length === 1 ? children[0]! : { kind: "and", children };
  }

  private parseConstraint(depth: number): FilterNode {
    const token = this.advance();
    if (token.kind === "(") {
      if (depth >= ASSET_FILTER_LIMITS.maxDepth) {
        throw filterError(token.pos, `parentheses are nested more than ${ASSET_FILTER_LIMITS.maxDepth} levels deep`);
      }
      const node = this.parseOr(depth + 1);
      const close = this.peek();
      if (close.kind !== ")") {
        throw filterError(close.pos, `expected ")" to close the "(" at position ${token.pos + 1} but found ${describeToken(close)}`);
      }
      this.advance();
      return node;
    }
    if (token.kind !== "value" || token.quoted) {
      throw filterError(token.pos, `expected a field name or "(" but found ${describeToken(token)}`);
    }
    if (++this.constraintCount > ASSET_FILTER_LIMITS.maxConstraints) {
      throw filterError(token.pos, `too many comparisons; a filter may contain at most ${ASSET_FILTER_LIMITS.maxConstraints}`);
    }
    const operator = this.advance();
    if (operator.kind !== "operator") {
      throw filterError(operator.pos, `expected a comparison operator (${OPERATOR_LIST}) after ${show(token.text)} but found ${describeToken(operator)}`);
    }
    const { values, listPos } = this.parseArguments(operator);
    return { kind: "constraint", selector: token, operator, values, listPos };
  }

  private parseArguments(operator: OperatorToken): { values: ValueToken[]; listPos: number | null } {
    const first = this.advance();
    if (first.kind === "value") return { values: [first], listPos: null };
    if (first.kind !== "(") {
      throw filterError(first.pos, `expected a value after ${show(operator.raw)} but found ${describeToken(first)}`);
    }
    if (this.peek().kind === ")") throw filterError(this.peek().pos, "a list needs at least one value");
    const values: ValueToken[] = [];
    for (;;) {
      const value = this.advance();
      if (value.kind !== "value") {
        throw filterError(value.pos, `expected a value in the list but found ${describeToken(value)}`);
      }
      values.push(value);
      if (values.length > ASSET_FILTER_LIMITS.maxListValues) {
        throw filterError(value.pos, `a list may contain at most ${ASSET_FILTER_LIMITS.maxListValues} values`);
      }
      const separator = this.advance();
      if (separator.kind === ")") break;
      if (separator.kind !== ",") {
        throw filterError(separator.pos, `expected "," or ")" in the list opened at position ${first.pos + 1} but found ${describeToken(separator)}`);
      }
    }
    return { values, listPos: first.pos };
  }
}

// ---------------------------------------------------------------------------------------------------
// Translation
// ---------------------------------------------------------------------------------------------------

type Where = Prisma.AssetWhereInput;
type Column = keyof Where;

/** Matches no rows: Prisma renders an empty OR as FALSE (whereas `NOT: {}` is TRUE). */
const matchNone = (): Where => ({ OR: [] });

/** `{ [column]: filter }`; the one cast in the translation — callers pass filters valid for the column. */
function on(column: Column, filter: unknown): Where {
  return { [column]: filter } as Where;
}

function combine(kind: "AND" | "OR", parts: Where[]): Where {
  if (parts.length === 1) return parts[0]!;
  // Flatten nested groups of the same kind, e.g. a;(b;c) → AND [a, b, c].
  const flat = parts.flatMap((part) => {
    const keys = Object.keys(part);
    const nested = part[kind];
    return keys.length === 1 && Array.isArray(nested) ? nested : [part];
  });
  return kind === "AND" ? { AND: flat } : { OR: flat };
}

function translateNode(node: FilterNode, fields: Set<FilterableAssetField>): Where {
  if (node.kind === "constraint") return translateConstraint(node, fields);
  return combine(node.kind === "and" ? "AND" : "OR", node.children.map((child) => translateNode(child, fields)));
}

/** A value checked and converted for one field; `null` is the unquoted keyword. */
type Parsed<T> = T | null;

interface FieldSpec {
  operators: readonly Operator[];
  translate(c: Constraint, field: FilterableAssetField): Where;
}

const EQUALITY_OPERATORS: readonly Operator[] = ["==", "!=", "=in=", "=out="];
const ALL_OPERATORS: readonly Operator[] = ["==", "!=", "=gt=", "=ge=", "=lt=", "=le=", "=in=", "=out="];

function isNullKeyword(value: ValueToken): boolean {
  return !value.quoted && value.text === "null";
}

function hasWildcard(value: ValueToken): boolean {
  return value.segments.length > 1;
}

function translateConstraint(c: Constraint, fields: Set<FilterableAssetField>): Where {
  const name = c.selector.text;
  if (!isFilterableField(name)) {
    const suggestion = suggestField(name);
    throw filterError(
      c.selector.pos,
      `unknown field ${show(name)}${suggestion ? ` (did you mean ${show(suggestion)}?)` : ""}; filterable fields: ${FILTERABLE_ASSET_FIELDS.join(", ")}`,
    );
  }
  fields.add(name);
  const spec = FIELD_SPECS[name];
  if (!spec.operators.includes(c.operator.op)) {
    throw filterError(
      c.operator.pos,
      `operator ${show(c.operator.raw)} is not supported for field ${show(name)}; supported operators: ${spec.operators.join(", ")}`,
    );
  }
  const takesList = c.operator.op === "=in=" || c.operator.op === "=out=";
  if (c.listPos !== null && !takesList) {
    throw filterError(c.listPos, `operator ${show(c.operator.raw)} takes a single value; use =in= or =out= for a list`);
  }
  return spec.translate(c, name);
}

function isFilterableField(name: string): name is FilterableAssetField {
  return (FILTERABLE_ASSET_FIELDS as readonly string[]).includes(name);
}

/** Catches case and snake_case slips such as `CreatedAt` or `created_at`. */
function suggestField(name: string): FilterableAssetField | undefined {
  const normalized = name.replace(/[_-]/g, "").toLowerCase();
  return FILTERABLE_ASSET_FIELDS.find((field) => field.toLowerCase() === normalized);
}

// --- Value parsers -----------------------------------------------------------------------------------

type ValueParser<T> = (value: ValueToken, field: FilterableAssetField) => T;

function wildcardHint(value: ValueToken): string {
  return hasWildcard(value) ? `; wildcards (*) are only supported for ${STRING_FIELDS.join(", ")}` : "";
}

/** Parser for a closed set of API values mapped to database values. */
function enumValues<T>(mapping: Record<string, T>): ValueParser<T> {
  return (value, field) => {
    if (Object.hasOwn(mapping, value.text)) return mapping[value.text]!;
    throw filterError(
      value.pos,
      `invalid value ${show(value.text)} for field ${show(field)}; expected one of: ${Object.keys(mapping).join(", ")}${wildcardHint(value)}`,
    );
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const parseUuid: ValueParser<string> = (value, field) => {
  if (UUID.test(value.text)) return value.text.toLowerCase();
  throw filterError(value.pos, `invalid value ${show(value.text)} for field ${show(field)}; expected a UUID or null`);
};

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2}))?$/i;
const MAX_DATE_MS = 8.64e15; // the ECMAScript Date range

/** Milliseconds since the epoch, or an ISO-8601 date (UTC midnight) / date-time with a zone designator. */
const parseDate: ValueParser<Date> = (value, field) => {
  const text = value.text;
  const invalid = () =>
    filterError(
      value.pos,
      `invalid value ${show(text)} for field ${show(field)}; expected milliseconds since the epoch (e.g. 1714521600000) or an ISO-8601 date-time with a time zone (e.g. 2024-05-01T00:00:00Z)`,
    );
  if (/^-?\d{1,16}$/.test(text)) {
    const ms = Number(text);
    if (Math.abs(ms) > MAX_DATE_MS) throw invalid();
    return new Date(ms);
  }
  const m = ISO_DATE_TIME.exec(text);
  if (!m) throw invalid();
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((part) => Number(part ?? 0));
  const millis = Number(((m[7] ?? "") + "000").slice(0, 3)); // sub-millisecond digits are ignored
  const zone = m[8] ?? "Z";
  if (hour > 23 || minute > 59 || second > 59) throw invalid();
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== "Z") {
    const offsetHours = Number(zone.slice(1, 3));
    const offsetMins = Number(zone.slice(4, 6));
    if (offsetHours > 23 || offsetMins > 59) throw invalid();
    offsetMinutes = (zone.startsWith("-") ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const date = new Date(0);
  date.setUTCFullYear(year!, month! - 1, day!); // setUTCFullYear keeps years < 100 literal
  // A day that rolled over (e.g. 2024-02-30) is not a calendar date.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month! - 1 || date.getUTCDate() !== day) throw invalid();
  date.setUTCHours(hour!, minute!, second!, millis);
  return new Date(date.getTime() - offsetMinutes * 60_000);
};

const MAX_BIGINT = 2n ** 63n - 1n;

const parseSize: ValueParser<bigint> = (value, field) => {
  if (/^\d+$/.test(value.text)) {
    const size = BigInt(value.text);
    if (size <= MAX_BIGINT) return size;
  }
  throw filterError(value.pos, `invalid value ${show(value.text)} for field ${show(field)}; expected a non-negative integer number of bytes`);
};

/** Literal string (no wildcards); `*` must be escaped inside quotes to be literal. */
const parseLiteralString: ValueParser<string> = (value, field) => {
  if (hasWildcard(value)) {
    throw filterError(
      value.pos,
      `wildcards (*) are not supported here for field ${show(field)}; they work only with == and != on ${STRING_FIELDS.join(", ")} (write \\* inside quotes for a literal asterisk)`,
    );
  }
  return value.text;
};

// --- Field builders ----------------------------------------------------------------------------------

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

function equalityField<T>(opts: ScalarOptions<T>): FieldSpec {
  return {
    operators: EQUALITY_OPERATORS,
    translate: (c, field) => equalityWhere(c.operator.op, parseValues(c, field, opts), opts),
  };
}

/** Dates and sizes: equality plus ordering comparisons. */
function orderedField<T>(opts: ScalarOptions<T>): FieldSpec {
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
function stringField(opts: { column: Column; nullable: boolean; caseInsensitive: boolean }): FieldSpec {
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

const tagsField: FieldSpec = {
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

// --- Field table -------------------------------------------------------------------------------------

// API value → Prisma enum member; `satisfies Record<Enum, Enum>` keeps the maps exhaustive and exact.
const STATUS_VALUES = { uploading: "uploading", pending: "pending", approved: "approved", rejected: "rejected", error: "error" } as const satisfies Record<AssetStatus, AssetStatus>;
const TYPE_VALUES = {
  image: "image",
  video: "video",
  audio: "audio",
  "plaintext-document": "plaintext_document",
  "multimedia-document": "multimedia_document",
  website: "website",
  file: "file",
} as const satisfies Record<string, AssetType>;
const VISIBILITY_VALUES = { public: "public", private: "private" } as const satisfies Record<Visibility, Visibility>;
const MODERATION_ACTION_VALUES = { ignore: "ignore", alert: "alert", hide: "hide", purge: "purge" } as const satisfies Record<ModerationAction, ModerationAction>;
const BOOLEAN_VALUES = { true: true, false: false } as const;

// Compile-time check that every Prisma AssetType is reachable from an API value.
type MissingAssetTypes = Exclude<AssetType, (typeof TYPE_VALUES)[keyof typeof TYPE_VALUES]>;
const _allAssetTypesMapped: [MissingAssetTypes] extends [never] ? true : never = true;
void _allAssetTypesMapped;

const STRING_FIELDS = ["name", "externalId", "fileFormat", "fileExtension"] as const satisfies readonly FilterableAssetField[];

const FIELD_SPECS: Record<FilterableAssetField, FieldSpec> = {
  status: equalityField({ column: "status", nullable: false, parse: enumValues(STATUS_VALUES) }),
  type: equalityField({ column: "type", nullable: false, parse: enumValues(TYPE_VALUES) }),
  visibility: equalityField({ column: "visibility", nullable: true, parse: enumValues(VISIBILITY_VALUES) }),
  moderationAction: equalityField({ column: "moderationAction", nullable: true, parse: enumValues(MODERATION_ACTION_VALUES) }),
  flagged: equalityField({ column: "flagged", nullable: true, parse: enumValues(BOOLEAN_VALUES) }),
  folderId: equalityField({ column: "folderId", nullable: true, parse: parseUuid }),
  parentId: equalityField({ column: "parentId", nullable: true, parse: parseUuid }),
  name: stringField({ column: "name", nullable: false, caseInsensitive: true }),
  externalId: stringField({ column: "externalId", nullable: true, caseInsensitive: false }),
  fileFormat: stringField({ column: "fileFormat", nullable: true, caseInsensitive: false }),
  fileExtension: stringField({ column: "fileExtension", nullable: true, caseInsensitive: false }),
  createdAt: orderedField({ column: "createdAt", nullable: false, parse: parseDate }),
  updatedAt: orderedField({ column: "updatedAt", nullable: false, parse: parseDate }),
  sizeInBytes: orderedField({ column: "sizeInBytes", nullable: true, parse: parseSize }),
  tags: tagsField,
};
