/**
 * Recursive-descent parser turning the token list into a small AST of and/or groups and constraints
 * (`selector operator value(s)`). Enforces the nesting, comparison-count and list-size limits.
 */
import { ASSET_FILTER_LIMITS } from "@/lib/assets/filter/limits";
import {
  OPERATOR_LIST,
  filterError,
  show,
  tokenize,
  type OperatorToken,
  type Token,
  type ValueToken,
} from "@/lib/assets/filter/lexer";

export interface Constraint {
  kind: "constraint";
  selector: ValueToken;
  operator: OperatorToken;
  /** Values; one for a plain argument, one or more for a parenthesised list. */
  values: ValueToken[];
  /** Position of the list's "(", or null for a single value. */
  listPos: number | null;
}

export type FilterNode = { kind: "and" | "or"; children: FilterNode[] } | Constraint;

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

/** Tokenizes and parses a non-empty filter. */
export function parseAst(input: string): FilterNode {
  return new Parser(tokenize(input)).parseFilter();
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
    return this.parseJoined(",", "or", () => this.parseAnd(depth));
  }

  private parseAnd(depth: number): FilterNode {
    return this.parseJoined(";", "and", () => this.parseConstraint(depth));
  }

  /** One or more operands separated by `symbol`; a single operand is returned as is. */
  private parseJoined(symbol: ";" | ",", kind: "and" | "or", parseOperand: () => FilterNode): FilterNode {
    const children = [parseOperand()];
    while (this.atLogical(symbol)) {
      this.advance();
      children.push(parseOperand());
    }
    return children.length === 1 ? children[0]! : { kind, children };
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
