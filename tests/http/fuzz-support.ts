import fc from "fast-check";

/** Generators of tests/http/fuzz.test.ts: nasty values, JSON shapes around valid templates, query strings. */

/** A field left out of its object. */
export const ABSENT = Symbol("absent");

/** A JSON number token JSON.stringify cannot write (`-0`, `2^53+1` exactly, `1e400`). */
export class RawNumber {
  constructor(readonly token: string) {}
}

const NASTY_PIECES = [
  "\u0000", "\ud800", "\udbff", "\udc00", "\udfff", "\ufffe", "\uffff", "\ufeff", "\u200f", "\u202e", "\u061c",
  "\ud83d\ude00", "👩‍👩‍👧", "\u0001", "\t\n", " ", "/", "\\", "%00", "'", "\"", "*", "==", "é", "a", "-", "(", ")", ",",
];

/** Strings made of NUL, lone surrogates (high and low), U+FFFE, RTL marks, emoji pairs, and very long ones. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.array(fc.oneof(fc.constantFrom(...NASTY_PIECES), fc.string({ maxLength: 6 })), { maxLength: 10 }).map((p) => p.join("")) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...NASTY_PIECES), fc.integer({ min: 100, max: 70_000 })).map(([piece, n]) => piece.repeat(n)) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
);

export const hugeNumber: fc.Arbitrary<unknown> = fc.constantFrom(
  1e308, -1e308, 5e-324, 2 ** 53, -1, 0, 0.5, 256, 2 ** 31, Number.MAX_SAFE_INTEGER,
  new RawNumber("-0"), new RawNumber("9007199254740993"), new RawNumber("1e400"), new RawNumber("-1e400"), new RawNumber("1E-400"),
);

/** Arbitrary JSON of a few levels: the wrong type for almost any field. */
export const anyValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", maxDepth: 3 },
    nastyString,
    hugeNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(nastyString, tie("value"), { maxKeys: 3 }),
  ),
})).value;

/** Arrays or objects nested up to a few thousand levels around a nasty leaf. */
export const deepValue: fc.Arbitrary<unknown> = fc
  .tuple(fc.integer({ min: 10, max: 3000 }), fc.constantFrom("array", "object", "mixed"), fc.oneof(nastyString, hugeNumber))
  .map(([depth, kind, leaf]) => {
    let value: unknown = leaf;
    for (let i = 0; i < depth; i++) value = kind === "array" || (kind === "mixed" && i % 2) ? [value] : { k: value };
    return value;
  });

/** A plausible string with one NUL or unpaired surrogate in it: what PostgreSQL cannot store. */
export const unstorableString: fc.Arbitrary<string> = fc
  .tuple(fc.string({ maxLength: 8 }), fc.constantFrom("\u0000", "\ud800", "\udbff", "\udc00", "\udfff", "\ud83d"), fc.string({ maxLength: 8 }))
  .map(([before, bad, after]) => before + bad + after);

/** What replaces a valid value: mostly unstorable or nasty strings, else wrong types, huge numbers, deep nesting. */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: unstorableString },
  { weight: 2, arbitrary: nastyString },
  { weight: 2, arbitrary: anyValue },
  { weight: 1, arbitrary: hugeNumber },
  { weight: 1, arbitrary: deepValue },
);

/** Sometimes (one time in `every`) a value, else null. */
const sometimes = <T>(arb: fc.Arbitrary<T>, every: number) => fc.oneof({ weight: every - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: arb });

interface Slot {
  parent: Record<string, unknown> | unknown[];
  key: string | number;
}

/** Every place in a JSON value that holds a value (iterative: values may nest deeply). */
function slotsOf(root: unknown): { all: Slot[]; strings: Slot[] } {
  const all: Slot[] = [];
  const strings: Slot[] = [];
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const parent = stack.pop();
    if (parent === null || typeof parent !== "object" || parent instanceof RawNumber) continue;
    const entries: [string | number, unknown][] = Array.isArray(parent) ? parent.map((v, i) => [i, v]) : Object.entries(parent);
    for (const [key, child] of entries) {
      const slot = { parent: parent as Slot["parent"], key };
      all.push(slot);
      if (typeof child === "string") strings.push(slot);
      stack.push(child);
    }
  }
  return { all, strings };
}

/** Sets an own property, even `__proto__` (which plain assignment would treat as the prototype). */
function setOwn(target: object, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

/** A copy of the arrays and plain objects of a value (iterative; other values are shared). */
function cloneTree(root: unknown): unknown {
  const copyOf = (value: unknown): unknown =>
    Array.isArray(value) ? [...value] : value !== null && typeof value === "object" && !(value instanceof RawNumber) ? { ...value } : value;
  const copy = copyOf(root);
  const stack: unknown[] = [copy];
  while (stack.length > 0) {
    const parent = stack.pop() as Record<string, unknown>;
    if (parent === null || typeof parent !== "object" || parent instanceof RawNumber) continue;
    for (const key of Object.keys(parent)) {
      const child = copyOf(parent[key]);
      setOwn(parent, key, child);
      stack.push(child);
    }
  }
  return copy;
}

interface Mutation {
  /** Which slot (modulo their number). */
  pick: number;
  /** `poison`: put an unstorable character into a string value; `replace`: any slot gets `replacement`. */
  kind: "poison" | "replace";
  replacement: unknown;
  at: number;
  bad: string;
}

function applyMutation(value: unknown, { pick, kind, replacement, at, bad }: Mutation): unknown {
  const slots = slotsOf(value);
  const pool = kind === "poison" && slots.strings.length > 0 ? slots.strings : slots.all;
  const slot = pool[pick % Math.max(pool.length, 1)];
  if (!slot) return kind === "poison" && typeof value === "string" ? value + bad : replacement;
  const current = (slot.parent as Record<string | number, unknown>)[slot.key];
  const poisoned = typeof current === "string" ? current.slice(0, at % (current.length + 1)) + bad + current.slice(at % (current.length + 1)) : replacement;
  setOwn(slot.parent, slot.key, kind === "poison" ? poisoned : replacement);
  return value;
}

const mutation = (kind: Mutation["kind"]): fc.Arbitrary<Mutation> =>
  fc.record({
    pick: fc.nat(),
    kind: fc.constant(kind),
    replacement: fc.oneof({ weight: 5, arbitrary: wrongValue }, { weight: 1, arbitrary: fc.constant(ABSENT) }),
    at: fc.nat(),
    bad: fc.constantFrom("\u0000", "\ud800", "\udbff", "\udc00", "\udfff"),
  });

/**
 * A valid request body, mostly with one change so that it meets every check but its own: one
 * string value (any depth) given a NUL or an unpaired surrogate, or one value anywhere replaced by
 * a wrong one or left out; sometimes several changes, an extra field, or not an object at all.
 */
export function mutate(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const changed = (mutations: fc.Arbitrary<Mutation[]>) =>
    fc.tuple(valid, mutations).map(([value, list]) => list.reduce<unknown>((current, m) => applyMutation(current, m), cloneTree(value)));
  const extraField = fc
    .tuple(valid, fc.dictionary(nastyString, anyValue, { minKeys: 1, maxKeys: 2 }))
    .map(([value, extra]) => (value !== null && typeof value === "object" && !Array.isArray(value) ? { ...value, ...extra } : value));
  return fc.oneof(
    { weight: 4, arbitrary: valid },
    { weight: 8, arbitrary: changed(fc.tuple(mutation("poison"))) },
    { weight: 4, arbitrary: changed(fc.tuple(mutation("replace"))) },
    { weight: 2, arbitrary: changed(fc.array(fc.oneof(mutation("poison"), mutation("replace")), { minLength: 2, maxLength: 3 })) },
    { weight: 1, arbitrary: extraField },
    { weight: 1, arbitrary: wrongValue },
  );
}

/** Literal JSON text in jsonText's work stack. */
class Token {
  constructor(readonly text: string) {}
}

/** JSON text for a generated value: raw number tokens as written, absent fields left out; iterative, as values nest thousands deep. */
export function jsonText(root: unknown): string {
  const out: string[] = [];
  const work: unknown[] = [root];
  while (work.length > 0) {
    const item = work.pop();
    if (item instanceof Token) out.push(item.text);
    else if (item instanceof RawNumber) out.push(item.token);
    else if (Array.isArray(item)) {
      out.push("[");
      work.push(new Token("]"));
      for (let i = item.length - 1; i >= 0; i--) {
        work.push(item[i] === ABSENT ? null : item[i]);
        if (i > 0) work.push(new Token(","));
      }
    } else if (item !== null && typeof item === "object") {
      const entries = Object.entries(item).filter(([, value]) => value !== ABSENT);
      out.push("{");
      work.push(new Token("}"));
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, value] = entries[i] as [string, unknown];
        work.push(value, new Token(`${JSON.stringify(key)}:`));
        if (i > 0) work.push(new Token(","));
      }
    } else out.push(JSON.stringify(item));
  }
  return out.join("");
}

const percentEncode = (bytes: Uint8Array) => [...bytes].map((b) => `%${b.toString(16).padStart(2, "0").toUpperCase()}`).join("");
/**
 * Query text as UTF-8 (a lone surrogate becomes U+FFFD, as any client would send it), cut so the
 * whole URL stays under Node's 16 KiB header limit: beyond it Node itself answers a bare 431.
 */
const encodeQueryText = (text: string) => percentEncode(Buffer.from(text.slice(0, 300), "utf8"));

/** A query value as sent on the wire: encoded nasty text, or percent-encoded bytes that may not be UTF-8. */
export const rawQueryValue: fc.Arbitrary<string> = fc.oneof(
  nastyString.map(encodeQueryText),
  unstorableString.map(encodeQueryText),
  fc.uint8Array({ maxLength: 8 }).map(percentEncode),
  fc.constantFrom("%ED%A0%80", "%ED%BF%BF", "%FF", "%C0%80", "%F4%90%80%80", "%00", "a%00b", "%", "%zz", "+", "%E2%80%AE"),
);

/** `name=value&…` around valid values, with nasty, absent, repeated and unknown parameters mixed in. */
export function queryString(params: Record<string, fc.Arbitrary<string>>): fc.Arbitrary<string> {
  const valueOf = (valid: fc.Arbitrary<string>) =>
    fc.oneof(
      { weight: 14, arbitrary: valid.map(encodeQueryText) },
      { weight: 4, arbitrary: rawQueryValue },
      { weight: 2, arbitrary: fc.constant(null) },
    );
  const entries = Object.entries(params).map(([name, valid]) => valueOf(valid).map((value) => (value === null ? [] : [`${name}=${value}`])));
  const extra = sometimes(fc.tuple(rawQueryValue, rawQueryValue).map(([name, value]) => `${name}=${value}`), 8);
  return fc.tuple(fc.tuple(...entries), extra).map(([pairs, more]) => [...pairs.flat(), ...(more === null ? [] : [more])].join("&"));
}
