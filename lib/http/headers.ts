import { z } from "zod";
import { ApiError, type ErrorCode } from "@/lib/core/errors";
import { isStorableText, STORABLE_TEXT_MESSAGE, text } from "@/lib/core/schemas";
import { describeIssues } from "@/lib/http/validation";

/**
 * An endpoint's request headers: a zod object keyed by lower-case header name, each value
 * `.describe()`d. The wrapper parses it (handlers get `input.headers`) and the OpenAPI document
 * lists it, so it is the one place a header is declared.
 */
export type HeaderSchema = z.ZodObject;

interface HeaderFailure {
  code: ErrorCode;
  message: string;
}

/** Headers whose failure is not a generic validation error (kept out of the JSON Schema output). */
const headerFailures = z.registry<HeaderFailure>();

/**
 * Declares the error a header answers with when it is absent or fails `schema`, e.g.
 * `failsWith(z.string(), "upload/missing-header", "…")`; undeclared failures are 400
 * request/validation-failed naming the header. Apply it last: zod methods return new schemas.
 */
export function failsWith<S extends z.ZodType>(schema: S, code: ErrorCode, message: string): S {
  headerFailures.add(schema, { code, message });
  return schema;
}

/** The error a header schema declared with `failsWith`, if any. */
export function headerFailureOf(schema: z.core.$ZodType): HeaderFailure | undefined {
  return headerFailures.get(schema);
}

/** Parses the declared headers; the first failing header (in declaration order) decides the error. */
export function parseHeaders<H extends HeaderSchema>(schema: H, headers: Headers): z.output<H> {
  const values = Object.fromEntries(Object.keys(schema.shape).map((name) => [name, headers.get(name) ?? undefined]));
  const result = schema.safeParse(values);
  if (result.success) return result.data;
  const failing = result.error.issues[0]?.path[0];
  const failure = typeof failing === "string" ? headerFailureOf(schema.shape[failing]) : undefined;
  if (failure) throw new ApiError(failure.code, failure.message);
  throw new ApiError("request/validation-failed", describeIssues(result.error.issues, "headers"));
}

/** `x-service-upload` → `X-Service-Upload`, the form the documentation shows. */
export function headerDisplayName(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
}

/** An optional `Content-Disposition` header, parsed to the filename it names (null when none). */
export const contentDispositionHeader = text()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined) return { fileName: null };
    const fileName = fileNameOf(value);
    // The filename names the asset, so `filename*=UTF-8''%00` is refused rather than stored, and
    // percent-encoding that is not UTF-8 is refused rather than silently dropped.
    const problem =
      fileName === undefined ? "filename* is not percent-encoded UTF-8"
      : fileName !== null && !isStorableText(fileName) ? `the filename ${STORABLE_TEXT_MESSAGE}`
      : null;
    if (problem === null) return { fileName: fileName ?? null };
    ctx.addIssue({ code: "custom", message: problem, input: value });
    return z.NEVER;
  });

const MAX_FILE_NAME = 255;

/**
 * The filename of `attachment; filename="x"` (or RFC 5987 `filename*`), at most 255 characters;
 * null when none, undefined when `filename*` is not percent-encoded UTF-8.
 */
export function fileNameOf(contentDisposition: string): string | null | undefined {
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(contentDisposition);
  if (extended?.[1]) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(extended[1].trim());
    } catch {
      return undefined;
    }
    return truncate(decoded) || null;
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/.exec(contentDisposition);
  const name = (plain?.[1] ?? plain?.[2])?.trim().replace(/\\(.)/g, "$1");
  return name ? truncate(name) : null;
}

/** Cuts at a character boundary: slicing UTF-16 units could leave half a surrogate pair. */
function truncate(name: string): string {
  if (name.length <= MAX_FILE_NAME) return name;
  const cut = name.slice(0, MAX_FILE_NAME);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}
