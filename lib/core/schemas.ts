import { z } from "zod";
import { UUID_PATTERN } from "@/lib/core/ids";

/**
 * zod primitives shared by every domain's schemas (and so by the OpenAPI document). A request
 * schema never uses `z.string()`, `z.url()` or `z.unknown()` directly: it uses `text()`, `webUrl()`
 * or `jsonValue()`, which refuse what PostgreSQL cannot store (tests/unit/request-strings.test.ts
 * walks every endpoint's request schemas to prove it).
 */

export const STORABLE_TEXT_MESSAGE = "must not contain NUL characters or unpaired surrogates";

// With the `u` flag a surrogate pair is one code point, so only unpaired surrogates match the range
// (the same test as `String.prototype.isWellFormed`, which the TypeScript lib target here lacks).
const UNSTORABLE = /[\u0000\uD800-\uDFFF]/u;

/**
 * PostgreSQL text and jsonb cannot hold U+0000 (22021 / 22P05), and a lone UTF-16 surrogate has no
 * UTF-8 form: jsonb refuses its `\uD800` escape and text columns would silently store U+FFFD.
 */
export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/** The check every client string carries; `abort` keeps length/pattern messages out of the way. */
export const storableTextCheck = z.refine<string>(isStorableText, { message: STORABLE_TEXT_MESSAGE, abort: true });

/** A client string (stored, searched or compared in PostgreSQL); compose with min/max/regex as usual. */
export function text() {
  return z.string().check(storableTextCheck);
}

/** An absolute URL from a client; zod keeps the string as sent, so it needs the same check. */
export function webUrl() {
  return z.url().check(storableTextCheck);
}

/**
 * The first unstorable string of a JSON value, or the object holding the first unstorable key (the
 * key itself is not echoed back), as a zod path; null when every string and key is storable.
 */
export function findUnstorableJson(value: unknown): { path: PropertyKey[]; in: "string" | "key" } | null {
  // An explicit stack with parent links: deep input cannot overflow the call stack, and a path is
  // only built for the one failure reported.
  interface Node {
    value: unknown;
    key: PropertyKey | null;
    parent: Node | null;
  }
  const pathOf = (node: Node): PropertyKey[] => {
    const path: PropertyKey[] = [];
    for (let at: Node | null = node; at && at.key !== null; at = at.parent) path.push(at.key);
    return path.reverse();
  };
  const stack: Node[] = [{ value, key: null, parent: null }];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    const current = node.value;
    if (typeof current === "string") {
      if (!isStorableText(current)) return { path: pathOf(node), in: "string" };
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], key: i, parent: node });
    } else if (current !== null && typeof current === "object") {
      const entries = Object.entries(current);
      if (entries.some(([key]) => !isStorableText(key))) return { path: pathOf(node), in: "key" };
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i] as [string, unknown];
        stack.push({ value: child, key, parent: node });
      }
    }
  }
  return null;
}

/** Every string value and object key of a free JSON value must be storable (it is stored as jsonb). */
export const storableJsonCheck = z.superRefine<unknown>((value, ctx) => {
  const found = findUnstorableJson(value);
  if (found === null) return;
  const message = found.in === "key" ? `keys ${STORABLE_TEXT_MESSAGE}` : STORABLE_TEXT_MESSAGE;
  ctx.addIssue({ code: "custom", path: found.path, message, input: value });
});

/** Free JSON from a client (e.g. lens transform options). */
export function jsonValue() {
  return z.unknown().check(storableJsonCheck);
}

/** Marks a string that carries upload content (see `uploadContentString`). */
export const uploadContentCheck = z.check<string>(() => undefined);

/**
 * A string whose characters are upload *content* (plain text, base64, a data: URL): it becomes the
 * stored file's bytes, never a PostgreSQL text value, and a NUL in a text file is legitimate
 * content that moderation must judge rather than the API refuse.
 */
export function uploadContentString() {
  return z.string().check(uploadContentCheck);
}

export const uuid = text().regex(UUID_PATTERN, "must be a UUID");

/** Some character that is not white space: `\S` matches exactly what `String.prototype.trim` keeps. */
export const NOT_BLANK = /\S/;

/** The path parameters of routes under /projects/{projectId}/ (one schema for every domain's endpoints). */
export const projectParams = z.object({ projectId: uuid });

/** A schema's JSON Schema as a client sends it, for stating in `.meta()` what a refinement checks. */
export function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" });
  return json;
}

/*
 * Rules between the fields of an object. Each helper adds the check zod runs and states the same
 * rule in the object's JSON Schema, from one declaration, so the OpenAPI document (and any
 * validator or client generated from it) refuses what the server refuses.
 */

type FieldOf<T extends z.ZodObject> = keyof T["shape"] & string;
const presentOf = (value: object, keys: readonly string[]) => keys.filter((k) => (value as Record<string, unknown>)[k] !== undefined);

/** Exactly one of `keys` (JSON Schema: `oneOf` of `required`). */
export function exactlyOneOf<T extends z.ZodObject>(schema: T, keys: readonly FieldOf<T>[]): T {
  return schema
    .superRefine((value, ctx) => {
      const present = presentOf(value, keys);
      if (present.length === 1) return;
      ctx.addIssue({ code: "custom", message: `exactly one of ${keys.join(", ")} is required${present.length ? ` (got ${present.join(", ")})` : ""}` });
    })
    .meta({ oneOf: keys.map((key) => ({ required: [key] })) });
}

/** At most one of `keys` (JSON Schema: `not` of `required` of any two). */
export function atMostOneOf<T extends z.ZodObject>(schema: T, keys: readonly FieldOf<T>[]): T {
  const pairs = keys.flatMap((a, i) => keys.slice(i + 1).map((b) => [a, b]));
  return schema
    .superRefine((value, ctx) => {
      const present = presentOf(value, keys);
      if (present.length > 1) ctx.addIssue({ code: "custom", path: [present[1] as string], message: `send at most one of ${keys.join(", ")} (got ${present.join(", ")})` });
    })
    .meta({ not: { anyOf: pairs.map((pair) => ({ required: pair })) } });
}

/** At least one of `keys` (JSON Schema: `anyOf` of `required`). */
export function atLeastOneOf<T extends z.ZodObject>(schema: T, keys: readonly FieldOf<T>[]): T {
  return schema
    .superRefine((value, ctx) => {
      if (presentOf(value, keys).length === 0) ctx.addIssue({ code: "custom", message: `at least one of ${keys.join(", ")} is required` });
    })
    .meta({ anyOf: keys.map((key) => ({ required: [key] })) });
}

/** At least one field, any of them (JSON Schema: `minProperties: 1`). */
export function atLeastOneField<T extends z.ZodObject>(schema: T): T {
  return schema
    .superRefine((value, ctx) => {
      if (presentOf(value, Object.keys(schema.shape)).length === 0) ctx.addIssue({ code: "custom", message: "at least one field is required" });
    })
    .meta({ minProperties: 1 });
}

/** `fields` only together with `key` (JSON Schema: `dependentRequired`). */
export function onlyWith<T extends z.ZodObject>(schema: T, fields: readonly FieldOf<T>[], key: FieldOf<T>): T {
  return schema
    .superRefine((value, ctx) => {
      if (presentOf(value, [key]).length > 0) return;
      for (const field of presentOf(value, fields)) ctx.addIssue({ code: "custom", path: [field], message: `only allowed with ${key}` });
    })
    .meta({ dependentRequired: Object.fromEntries(fields.map((field) => [field, [key]])) });
}
