import type { z } from "zod";
import { ApiError } from "@/lib/core/errors";

/** Parses with a zod schema and turns issues into one readable `request/validation-failed` message. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, where: "params" | "query" | "body"): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ApiError("request/validation-failed", describeIssues(result.error.issues, where));
}

export function describeIssues(issues: readonly z.core.$ZodIssue[], where: string): string {
  const parts = issues.slice(0, 10).map((issue) => {
    const at = [where, ...issue.path.map(String)].join(".");
    if (issue.code === "unrecognized_keys") return `${at}: unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
    return `${at}: ${issue.message}`;
  });
  const more = issues.length > 10 ? ` (and ${issues.length - 10} more)` : "";
  return `Invalid request: ${parts.join("; ")}${more}`;
}
