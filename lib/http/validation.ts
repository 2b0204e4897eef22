import type { z } from "zod";
import { ApiError } from "@/lib/core/errors";

/** Parses with a zod schema and turns issues into one readable `request/validation-failed` message. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: "params" | "query" | "body"): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ApiError("request/validation-failed", describeIssues(result.error.issues, where));
}

export function describeIssues(allIssues: readonly z.core.$ZodIssue[], where: string): string {
  const issues = allIssues.flatMap(explainUnion);
  const parts = issues.slice(0, 10).map((issue) => {
    const at = [where, ...issue.path.map(String)].join(".");
    if (issue.code === "unrecognized_keys") return `${at}: unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
    return `${at}: ${issue.message}`;
  });
  const more = issues.length > 10 ? ` (and ${issues.length - 10} more)` : "";
  return `Invalid request: ${parts.join("; ")}${more}`;
}

/**
 * A failed union says only "Invalid input". When exactly one option took the value's type (a
 * metadata value that is a string, but with a NUL), that option's issues name the real problem.
 */
function explainUnion(issue: z.core.$ZodIssue): z.core.$ZodIssue[] {
  if (issue.code !== "invalid_union") return [issue];
  const typeMatches = issue.errors.filter((option) => !option.every((i) => i.code === "invalid_type" && i.path.length === 0));
  if (typeMatches.length !== 1) return [issue];
  return (typeMatches[0] as z.core.$ZodIssue[]).flatMap((inner) => explainUnion({ ...inner, path: [...issue.path, ...inner.path] }));
}

/** A `request/validation-failed` error for one field found outside zod, worded like zod's. */
export function fieldError(where: string, path: PropertyKey[], message: string): ApiError {
  return new ApiError("request/validation-failed", describeIssues([{ code: "custom", path, message, input: undefined }], where));
}
