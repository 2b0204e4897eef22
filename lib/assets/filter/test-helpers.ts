/** Shared fixtures for the asset filter tests. */
import { expect } from "vitest";
import { ApiError } from "@/lib/core/errors";
import { parseAssetFilter } from "@/lib/assets/filter";

export const F1 = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";
export const F2 = "6ba7b810-9dad-11d1-80b4-00c04fd430c8";

/** Asserts a validation error whose message contains every fragment (or matches the pattern). */
export function expectInvalid(filter: string, ...expected: (string | RegExp)[]): string {
  let caught: unknown;
  try {
    parseAssetFilter(filter);
  } catch (error) {
    caught = error;
  }
  expect(caught, `filter ${JSON.stringify(filter)} should be rejected`).toBeInstanceOf(ApiError);
  const error = caught as ApiError;
  expect(error.code).toBe("request/validation-failed");
  expect(error.status).toBe(400);
  for (const fragment of expected) {
    if (typeof fragment === "string") expect(error.message).toContain(fragment);
    else expect(error.message).toMatch(fragment);
  }
  return error.message;
}
