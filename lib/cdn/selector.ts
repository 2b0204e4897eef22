import { z } from "zod";
import { ApiError } from "@/lib/core/errors";
import { imageTransformOptions, lensIdentifier } from "@/lib/lenses/schemas";
import type { ImageTransformStep, Selector } from "@/lib/cdn/types";

/**
 * The CDN path segment after `/content/` or `/preview/` (docs/api.md, "CDN paths"):
 *
 *   (nothing)                               the content or preview itself
 *   @<lens>                                 lens identifier, [a-z0-9-]{1,50}
 *   imageTransform[<key>=<value>,...]       one or more options, comma-separated, no spaces
 *
 * The grammar is strict so one image has few spellings (fewer cache entries, no surprises): a
 * malformed selector is 400 asset/invalid-transform; well-formed options that break the option
 * schema (unknown or repeated key, bad value) are 400 asset/invalid-transform-options. Option values
 * are validated by `imageTransformOptions`, the schema lens definitions use, so a direct transform
 * and a lens accept exactly the same options.
 */

/** Keys in canonical order: the order of `canonical`, the cache-key form of a transform. */
const OPTION_KEYS = ["width", "height", "fit", "format", "quality"] as const;
type OptionKey = (typeof OPTION_KEYS)[number];

/** `jpg` is accepted for `format` and stored as `jpeg`. */
const FORMAT_ALIASES: Record<string, string> = { jpg: "jpeg" };

export const SELECTOR_GRAMMAR = `expected "@<lens identifier>" or "imageTransform[key=value,...]" with keys ${OPTION_KEYS.join(", ")}`;

const TRANSFORM_SYNTAX = /^imageTransform\[([^[\]]*)\]$/;
// A key and a value: non-empty, no separators, brackets, whitespace or percent signs.
const PAIR_SYNTAX = /^([^=,[\]\s%]+)=([^=,[\]\s%]+)$/;
const DECIMAL_INTEGER = /^[1-9][0-9]{0,9}$/;

export function parseSelector(segment: string | undefined): Selector {
  if (segment === undefined || segment === "") return { kind: "none" };
  const decoded = decodeSegment(segment);
  if (decoded.startsWith("@")) return parseLens(decoded.slice(1));
  const match = TRANSFORM_SYNTAX.exec(decoded);
  if (!match) throw malformed(`"${truncate(decoded)}" is not a selector: ${SELECTOR_GRAMMAR}.`);
  const step = parseOptions(match[1] ?? "");
  return { kind: "transform", step, canonical: canonicalTransform(step) };
}

/** The selector in its one spelling: what signatures cover and cache keys name ("" for none). */
export function selectorKey(selector: Selector): string {
  if (selector.kind === "none") return "";
  return selector.kind === "lens" ? `@${selector.identifier}` : selector.canonical;
}

/** The normalized selector for a step: keys in fixed order, normalized values. */
export function canonicalTransform(step: ImageTransformStep): string {
  const pairs = OPTION_KEYS.filter((key) => step[key] !== undefined).map((key) => `${key}=${step[key]}`);
  return `imageTransform[${pairs.join(",")}]`;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw malformed("The selector is not valid percent-encoded UTF-8.");
  }
}

function parseLens(identifier: string): Selector {
  if (!lensIdentifier.safeParse(identifier).success) {
    throw malformed(`"@${truncate(identifier)}" is not a lens selector: a lens identifier is 1 to 50 lowercase letters, digits and hyphens.`);
  }
  return { kind: "lens", identifier };
}

function parseOptions(list: string): ImageTransformStep {
  if (list === "") throw malformed(`imageTransform[] has no options: ${SELECTOR_GRAMMAR}.`);
  const raw: Partial<Record<OptionKey, string>> = {};
  for (const pair of list.split(",")) {
    const match = PAIR_SYNTAX.exec(pair);
    if (!match) throw malformed(`"${truncate(pair)}" is not a key=value option: ${SELECTOR_GRAMMAR}.`);
    const [, key = "", value = ""] = match;
    if (!isOptionKey(key)) throw badOptions(`unknown option "${truncate(key)}"; allowed options: ${OPTION_KEYS.join(", ")}.`);
    if (raw[key] !== undefined) throw badOptions(`option "${key}" is given twice.`);
    raw[key] = value;
  }

  const candidate: Record<string, string | number> = {};
  for (const key of OPTION_KEYS) {
    const value = raw[key];
    if (value === undefined) continue;
    if (isNumeric(key)) {
      if (!DECIMAL_INTEGER.test(value)) throw badValue(key, value);
      candidate[key] = Number(value);
    } else {
      candidate[key] = key === "format" ? (FORMAT_ALIASES[value] ?? value) : value;
    }
  }
  const result = imageTransformOptions.safeParse(candidate);
  if (result.success) return result.data;
  const key = String(result.error.issues[0]?.path[0]) as OptionKey;
  throw badValue(key, raw[key] ?? "");
}

function isOptionKey(key: string): key is OptionKey {
  return (OPTION_KEYS as readonly string[]).includes(key);
}

/** The schema of one option, without its `.optional()` wrapper. */
function optionSchema(key: OptionKey) {
  return imageTransformOptions.shape[key].unwrap();
}

function isNumeric(key: OptionKey): boolean {
  return optionSchema(key) instanceof z.ZodNumber;
}

/** What an option accepts, read from the schema so the message cannot drift from it. */
function describeOption(key: OptionKey): string {
  const schema = optionSchema(key);
  if (schema instanceof z.ZodNumber) return `an integer from ${schema.minValue} to ${schema.maxValue} in plain decimal digits`;
  const aliases = key === "format" ? ` (or ${Object.keys(FORMAT_ALIASES).join(", ")})` : "";
  return `one of ${schema.options.join(", ")}${aliases}`;
}

function badValue(key: OptionKey, value: string): ApiError {
  return badOptions(`${key}=${truncate(value)} is invalid: ${key} must be ${describeOption(key)}.`);
}

function malformed(message: string): ApiError {
  return new ApiError("asset/invalid-transform", message);
}

function badOptions(message: string): ApiError {
  return new ApiError("asset/invalid-transform-options", `Invalid transform options: ${message}`);
}

/** Echoed input stays short: the selector comes from a URL of any length. */
function truncate(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
