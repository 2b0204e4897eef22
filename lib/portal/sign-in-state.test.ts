import { describe, expect, it } from "vitest";
import { safeCallbackPath } from "@/lib/portal/sign-in-state";

describe("where sign-in goes next", () => {
  it("keeps paths on this site", () => {
    expect(safeCallbackPath("/projects/p1/review?order=oldest")).toBe("/projects/p1/review?order=oldest");
  });

  it("never leaves the site or loops back to sign-in", () => {
    for (const value of ["https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)", "", null, 42, "/login?x=1", "/api/portal/me"]) {
      expect(safeCallbackPath(value), String(value)).toBe("/projects");
    }
  });
});
