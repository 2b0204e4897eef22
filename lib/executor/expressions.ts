/**
 * The subset of CEL that Inngest trigger `if`, waitForEvent `if`, concurrency/throttle `key` and
 * `idempotency` expressions use: literals, `event.…`/`async.…` paths (dot or ['index'] access),
 * comparisons, `&&`, `||`, `!`, `+` (numbers or strings), `in` on lists, and parentheses.
 * Anything else is refused at compile time, so an unsupported expression fails the sync loudly
 * instead of silently matching nothing.
 */
export class ExpressionError extends Error {
  override readonly name = "ExpressionError";
}

type Node =
  | { kind: "literal"; value: unknown }
  | { kind: "path"; root: string; keys: string[] }
  | { kind: "list"; items: Node[] }
  | { kind: "unary"; op: "!" | "-"; arg: Node }
  | { kind: "binary"; op: string; left: Node; right: Node };

type Token = { type: "num" | "str" | "ident" | "op"; value: string };

const OPERATORS = ["==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "+", "-", "(", ")", "[", "]", ".", ","];

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (/[0-9]/.test(ch)) {
      const m = /^[0-9]+(?:\.[0-9]+)?/.exec(source.slice(i))!;
      tokens.push({ type: "num", value: m[0] });
      i += m[0].length;
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(source.slice(i))!;
      tokens.push({ type: "ident", value: m[0] });
      i += m[0].length;
      continue;
    }
    if (ch === "'" || ch === '"') {
      let value = "";
      let j = i + 1;
      for (; j < source.length && source[j] !== ch; j++) {
        if (source[j] === "\\" && j + 1 < source.length) {
          j++;
          const esc = source[j]!;
          value += esc === "n" ? "\n" : esc === "t" ? "\t" : esc;
        } else value += source[j];
      }
      if (j >= source.length) throw new ExpressionError(`unterminated string in ${JSON.stringify(source)}`);
      tokens.push({ type: "str", value });
      i = j + 1;
      continue;
    }
    const op = OPERATORS.find((o) => source.startsWith(o, i));
    if (!op) throw new ExpressionError(`unsupported character ${JSON.stringify(ch)} in ${JSON.stringify(source)}`);
    tokens.push({ type: "op", value: op });
    i += op.length;
  }
  return tokens;
}

const PRECEDENCE: Record<string, number> = { "||": 1, "&&": 2, "==": 3, "!=": 3, "<": 4, "<=": 4, ">": 4, ">=": 4, in: 4, "+": 5, "-": 5 };
const ROOTS = new Set(["event", "async"]);

class Parser {
  private pos = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly source: string,
  ) {}

  parse(): Node {
    const node = this.expression(0);
    if (this.pos < this.tokens.length) this.fail(`unexpected ${this.tokens[this.pos]!.value}`);
    return node;
  }

  private fail(message: string): never {
    throw new ExpressionError(`${message} in ${JSON.stringify(this.source)}`);
  }

  private peek(): Token | undefined {
    return this.tokens[this.pos];
  }

  private expect(value: string): void {
    if (this.peek()?.value !== value) this.fail(`expected ${value}`);
    this.pos++;
  }

  private expression(minPrecedence: number): Node {
    let left = this.unary();
    for (;;) {
      const token = this.peek();
      const op = token && (token.type === "op" || token.value === "in") ? token.value : undefined;
      const precedence = op === undefined ? undefined : PRECEDENCE[op];
      if (precedence === undefined || precedence <= minPrecedence) return left;
      this.pos++;
      left = { kind: "binary", op: op!, left, right: this.expression(precedence) };
    }
  }

  private unary(): Node {
    const token = this.peek();
    if (token?.type === "op" && (token.value === "!" || token.value === "-")) {
      this.pos++;
      return { kind: "unary", op: token.value, arg: this.unary() };
    }
    return this.primary();
  }

  private primary(): Node {
    const token = this.tokens[this.pos++];
    if (!token) this.fail("unexpected end");
    if (token.type === "num") return { kind: "literal", value: Number(token.value) };
    if (token.type === "str") return { kind: "literal", value: token.value };
    if (token.type === "op" && token.value === "(") {
      const inner = this.expression(0);
      this.expect(")");
      return inner;
    }
    if (token.type === "op" && token.value === "[") {
      const items: Node[] = [];
      while (this.peek()?.value !== "]") {
        items.push(this.expression(0));
        if (this.peek()?.value === ",") this.pos++;
        else break;
      }
      this.expect("]");
      return { kind: "list", items };
    }
    if (token.type === "ident") {
      if (token.value === "true" || token.value === "false") return { kind: "literal", value: token.value === "true" };
      if (token.value === "null") return { kind: "literal", value: null };
      if (!ROOTS.has(token.value)) this.fail(`unsupported identifier ${token.value} (only event and async)`);
      const keys: string[] = [];
      for (;;) {
        const next = this.peek();
        if (next?.value === ".") {
          this.pos++;
          const name = this.tokens[this.pos++];
          if (name?.type !== "ident") this.fail("expected a field name after .");
          keys.push(name.value);
        } else if (next?.value === "[") {
          this.pos++;
          const key = this.tokens[this.pos++];
          if (key?.type !== "str" && key?.type !== "num") this.fail("expected a literal index");
          keys.push(key.value);
          this.expect("]");
        } else if (next?.value === "(") {
          this.fail("function calls are not supported");
        } else break;
      }
      return { kind: "path", root: token.value, keys };
    }
    this.fail(`unexpected ${token.value}`);
  }
}

function lookup(value: unknown, keys: readonly string[]): unknown {
  let current = value;
  for (const key of keys) {
    if (current === null || typeof current !== "object") return null;
    current = (current as Record<string, unknown>)[key];
  }
  return current ?? null;
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

function evaluate(node: Node, vars: Record<string, unknown>): unknown {
  switch (node.kind) {
    case "literal":
      return node.value;
    case "path":
      return lookup(vars[node.root], node.keys);
    case "list":
      return node.items.map((item) => evaluate(item, vars));
    case "unary": {
      const value = evaluate(node.arg, vars);
      return node.op === "!" ? !value : typeof value === "number" ? -value : null;
    }
    case "binary": {
      if (node.op === "&&") return Boolean(evaluate(node.left, vars)) && Boolean(evaluate(node.right, vars));
      if (node.op === "||") return Boolean(evaluate(node.left, vars)) || Boolean(evaluate(node.right, vars));
      const left = evaluate(node.left, vars);
      const right = evaluate(node.right, vars);
      switch (node.op) {
        case "==":
          return equal(left, right);
        case "!=":
          return !equal(left, right);
        case "in":
          return Array.isArray(right) && right.some((item) => equal(item, left));
        case "+":
          if (typeof left === "number" && typeof right === "number") return left + right;
          if (typeof left === "string" && typeof right === "string") return left + right;
          return null;
        case "-":
          return typeof left === "number" && typeof right === "number" ? left - right : null;
        default: {
          const comparable = (typeof left === "number" && typeof right === "number") || (typeof left === "string" && typeof right === "string");
          if (!comparable) return false;
          const [l, r] = [left as number | string, right as number | string];
          return node.op === "<" ? l < r : node.op === "<=" ? l <= r : node.op === ">" ? l > r : l >= r;
        }
      }
    }
  }
}

export type CompiledExpression = (vars: { event?: unknown; async?: unknown }) => unknown;

/** Compiles an expression; throws ExpressionError for anything outside the supported subset. */
export function compileExpression(source: string): CompiledExpression {
  const node = new Parser(tokenize(source), source).parse();
  return (vars) => evaluate(node, vars as Record<string, unknown>);
}

/** The string form of a key expression's value (concurrency, throttle, idempotency keys). */
export function expressionKey(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value ?? null);
}

const compiled = new Map<string, CompiledExpression>();

/** compileExpression, memoized: waitForEvent expressions are evaluated for every matching event. */
export function compileCached(source: string): CompiledExpression {
  let expression = compiled.get(source);
  if (!expression) {
    expression = compileExpression(source);
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(source, expression);
  }
  return expression;
}
