import { z } from "zod";

/** zod → JSON Schema conversion for the OpenAPI document, with `$defs` gathered into components. */

export type JsonObject = { [key: string]: unknown };

/**
 * Converts zod schemas and gathers their `$defs` (zod-`id` schemas and recursive ones) into
 * `components.schemas`, rewriting `#/$defs/X` references. Two different schemas with one name get
 * distinct component names (`AssetInput`, `Asset_2`, ...).
 */
export class SchemaCollector {
  readonly schemas: Record<string, JsonObject>;

  constructor(initial: Record<string, JsonObject>) {
    this.schemas = { ...initial };
  }

  convert(schema: z.ZodType, io: "input" | "output"): JsonObject {
    const json = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any", override: keepCaseInsensitivePatterns }) as JsonObject;
    const { $schema: _dialect, $defs, ...converted } = json;
    const { defs, root } = collapseAliases(isObject($defs) ? ($defs as Record<string, JsonObject>) : {}, converted);
    const names = this.assignNames(defs, io);
    for (const [name, def] of Object.entries(defs)) this.schemas[names.get(name) as string] = rewriteRefs(def, names) as JsonObject;
    return rewriteRefs(root, names) as JsonObject;
  }

  private assignNames(defs: Record<string, JsonObject>, io: "input" | "output"): Map<string, string> {
    const names = new Map(Object.keys(defs).map((n) => [n, n.replace(/[^A-Za-z0-9._-]/g, "_")]));
    // Renaming one def changes the references inside the others, so repeat until nothing moves.
    for (let round = 0; round < 50; round++) {
      let moved = false;
      for (const [name, def] of Object.entries(defs)) {
        const target = names.get(name) as string;
        const content = rewriteRefs(def, names);
        if (this.fits(target, content)) continue;
        const base = name.replace(/[^A-Za-z0-9._-]/g, "_");
        const candidates = [`${base}${io === "input" ? "Input" : "Output"}`, ...Array.from({ length: 100 }, (_, i) => `${base}_${i + 2}`)];
        const free = candidates.find((c) => c !== target && this.fits(c, content) && ![...names.values()].includes(c));
        if (!free) throw new Error(`OpenAPI: cannot name schema ${name}`);
        names.set(name, free);
        moved = true;
      }
      if (!moved) return names;
    }
    throw new Error("OpenAPI: schema names do not settle");
  }

  private fits(name: string, content: unknown): boolean {
    const existing = this.schemas[name];
    return existing === undefined || JSON.stringify(existing) === JSON.stringify(content);
  }
}

/**
 * JSON Schema patterns have no flags, so zod writes an `/i` regex's source as is (a UUID pattern
 * would then refuse upper-case ids the API accepts). Rewrite such a pattern to match both cases.
 */
function keepCaseInsensitivePatterns(ctx: { zodSchema: unknown; jsonSchema: JsonObject }): void {
  if (typeof ctx.jsonSchema.pattern !== "string") return;
  const checks = (ctx.zodSchema as { _zod?: { def?: { checks?: { _zod?: { def?: { pattern?: unknown } } }[] } } })._zod?.def?.checks;
  const regexes = (checks ?? []).map((c) => c._zod?.def?.pattern).filter((p): p is RegExp => p instanceof RegExp);
  const regex = regexes.length === 1 ? regexes[0] : undefined;
  if (!regex || !regex.flags.includes("i") || regex.source !== ctx.jsonSchema.pattern) return;
  const source = caseInsensitiveSource(regex.source);
  if (source !== undefined) ctx.jsonSchema.pattern = source;
}

/** `[0-9a-f]` → `[0-9a-fA-F]`, `x` → `[xX]`; undefined for constructs it does not handle. */
export function caseInsensitiveSource(source: string): string | undefined {
  if (/\\[pPk]|\(\?<[^=!]/.test(source)) return undefined;
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const ch = source[i] as string;
    if (ch === "\\") {
      const next = source[i + 1] ?? "";
      const length = next === "u" ? 6 : next === "x" ? 4 : next === "c" ? 3 : 2;
      out += source.slice(i, i + length);
      i += length - 1;
    } else if (inClass) {
      if (ch === "]") {
        inClass = false;
        out += ch;
      } else if (/[a-z]/i.test(ch) && source[i + 1] === "-" && /[a-z]/i.test(source[i + 2] ?? "")) {
        const range = `${ch}-${source[i + 2]}`;
        out += `${range.toLowerCase()}${range.toUpperCase()}`;
        i += 2;
      } else {
        out += /[a-z]/i.test(ch) ? `${ch.toLowerCase()}${ch.toUpperCase()}` : ch;
      }
    } else if (ch === "[") {
      inClass = true;
      out += ch;
      if (source[i + 1] === "^") out += source[++i];
    } else {
      out += /[a-z]/i.test(ch) ? `[${ch.toLowerCase()}${ch.toUpperCase()}]` : ch;
    }
  }
  return out;
}

/**
 * zod converts a recursive schema (z.json(), z.lazy) into an anonymous def (`__schema0`) and gives
 * the schema's `id` to a def that only points at it. The named def takes the content instead, so
 * the document has one `JsonValue`, not an alias and a `__schema0`.
 */
function collapseAliases(defs: Record<string, JsonObject>, root: JsonObject): { defs: Record<string, JsonObject>; root: JsonObject } {
  const redirects = new Map<string, string>();
  for (const [name, def] of Object.entries(defs)) {
    const target = Object.keys(def).length === 1 && typeof def.$ref === "string" ? def.$ref.slice("#/$defs/".length) : undefined;
    if (target && /^__schema\d+$/.test(target) && defs[target] && !redirects.has(target)) redirects.set(target, name);
  }
  if (redirects.size === 0) return { defs, root };
  const redirect = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(redirect);
    if (!isObject(value)) return value;
    const out: JsonObject = {};
    for (const [key, v] of Object.entries(value)) {
      const target = key === "$ref" && typeof v === "string" && v.startsWith("#/$defs/") ? redirects.get(v.slice("#/$defs/".length)) : undefined;
      out[key] = target ? `#/$defs/${target}` : redirect(v);
    }
    return out;
  };
  const collapsed: Record<string, JsonObject> = {};
  for (const [name, def] of Object.entries(defs)) {
    if (redirects.has(name)) collapsed[redirects.get(name) as string] = redirect(def) as JsonObject;
    else if (![...redirects.values()].includes(name)) collapsed[name] = redirect(def) as JsonObject;
  }
  return { defs: collapsed, root: redirect(root) as JsonObject };
}

function rewriteRefs(value: unknown, names: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, names));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === "$ref" && typeof v === "string" && v.startsWith("#/$defs/")) {
      const name = decodeURIComponent(v.slice("#/$defs/".length)).replace(/~1/g, "/").replace(/~0/g, "~");
      out[key] = `#/components/schemas/${names.get(name) ?? name}`;
    } else {
      out[key] = rewriteRefs(v, names);
    }
  }
  return out;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
