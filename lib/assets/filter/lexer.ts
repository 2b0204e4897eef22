/**
 * Filter tokenizer: splits the filter into values, operators and punctuation, keeping each token's
 * 0-based position for error messages. Also home of the positioned error constructor shared by all stages.
 */
import { ApiError } from "@/lib/core/errors";

// --- Errors --------------------------------------------------------------------------------------------

/** `pos` is a 0-based string index; messages show it 1-based. */
export function filterError(pos: number, message: string): ApiError {
  return new ApiError("request/validation-failed", `Invalid filter at position ${pos + 1}: ${message}`);
}

export const show = (text: string): string => JSON.stringify(text);

// --- Tokens --------------------------------------------------------------------------------------------

export type Operator = "==" | "!=" | "=gt=" | "=ge=" | "=lt=" | "=le=" | "=in=" | "=out=";

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

export const OPERATOR_LIST = "==, !=, =gt= (>), =ge= (>=), =lt= (<), =le= (<=), =in=, =out=";

export interface ValueToken {
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

export interface OperatorToken {
  kind: "operator";
  pos: number;
  raw: string;
  op: Operator;
}

export type Token = { kind: "(" | ")" | ";" | "," | "end"; pos: number } | OperatorToken | ValueToken;

/** The unquoted keyword `null` (a quoted "null" is an ordinary value). */
export function isNullKeyword(value: ValueToken): boolean {
  return !value.quoted && value.text === "null";
}

/** Whether the value contains an unescaped `*`. */
export function hasWildcard(value: ValueToken): boolean {
  return value.segments.length > 1;
}

// --- Tokenizer -----------------------------------------------------------------------------------------

const WHITESPACE = /\s/;
/** Characters that end an unquoted value (besides whitespace). */
const RESERVED = new Set(["'", '"', "(", ")", ";", ",", "=", "!", "<", ">"]);
/** C0 controls and DEL, except tab/newline/CR (whitespace). NUL would also make PostgreSQL fail. */
function isControlChar(ch: string): boolean {
  const code = ch.charCodeAt(0);
  return (code < 0x20 && ch !== "\t" && ch !== "\n" && ch !== "\r") || code === 0x7f;
}

export function tokenize(input: string): Token[] {
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
