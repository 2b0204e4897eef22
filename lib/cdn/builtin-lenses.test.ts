import { describe, expect, it } from "vitest";
import { BUILTIN_LENSES, builtinLens } from "@/lib/cdn/builtin-lenses";
import { ensureLensBody } from "@/lib/lenses/schemas";

describe("built-in lenses", () => {
  it("are thumbnail, web-optimised and preview, found by identifier", () => {
    expect(BUILTIN_LENSES.map((lens) => lens.identifier)).toEqual(["thumbnail", "web-optimised", "preview"]);
    expect(builtinLens("thumbnail")?.transforms[0]?.options).toEqual({ width: 256, height: 256, fit: "cover", format: "webp", quality: 75 });
    expect(builtinLens("web-optimised")?.transforms[0]?.options).toEqual({ width: 1600, fit: "inside", format: "webp", quality: 80 });
    expect(builtinLens("preview")?.transforms[0]?.options).toEqual({ width: 1024, height: 1024, fit: "inside", format: "webp", quality: 80 });
    expect(builtinLens("nope")).toBeUndefined();
    expect(builtinLens("constructor")).toBeUndefined();
  });

  it.each(BUILTIN_LENSES.map((lens) => [lens.identifier, lens] as const))("%s passes the lens definition schema", (_, lens) => {
    const { projectId: _projectId, userId: _userId, ...definition } = lens;
    const parsed = ensureLensBody.safeParse(definition);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    expect(lens).toMatchObject({ projectId: null, version: 1, type: "image", active: true });
    expect(lens.description.length).toBeGreaterThan(10);
  });
});
