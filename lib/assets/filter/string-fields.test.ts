import { describe, expect, it } from "vitest";
import { parseAssetFilter } from "@/lib/assets/filter";
import { expectInvalid } from "@/lib/assets/filter/test-helpers";

describe("string fields", () => {
  it("externalId: exact, case-sensitive equality", () => {
    expect(parseAssetFilter("externalId==Order-17")).toEqual({ externalId: "Order-17" });
    expect(parseAssetFilter("externalId=in=(a,b)")).toEqual({ externalId: { in: ["a", "b"] } });
  });

  it("negation also matches null for nullable fields", () => {
    expect(parseAssetFilter("externalId!=foo")).toEqual({ OR: [{ externalId: null }, { externalId: { not: "foo" } }] });
    expect(parseAssetFilter("fileFormat=out=(png,gif)")).toEqual({ OR: [{ fileFormat: null }, { fileFormat: { notIn: ["png", "gif"] } }] });
    expect(parseAssetFilter("fileFormat=out=(png,null)")).toEqual({ fileFormat: { notIn: ["png"], not: null } });
  });

  it("null for nullable string fields", () => {
    expect(parseAssetFilter("externalId==null")).toEqual({ externalId: null });
    expect(parseAssetFilter("fileExtension!=null")).toEqual({ fileExtension: { not: null } });
    expect(parseAssetFilter("fileExtension=in=(jpg,null)")).toEqual({ OR: [{ fileExtension: "jpg" }, { fileExtension: null }] });
    expect(parseAssetFilter('externalId=="null"')).toEqual({ externalId: "null" });
    expect(parseAssetFilter("externalId=='null'")).toEqual({ externalId: "null" });
  });

  it("name is matched case-insensitively", () => {
    expect(parseAssetFilter("name==Cat.PNG")).toEqual({ name: { in: ["Cat.PNG"], mode: "insensitive" } });
    expect(parseAssetFilter("name!=cat.png")).toEqual({ name: { notIn: ["cat.png"], mode: "insensitive" } });
    expect(parseAssetFilter("name=in=(a,b)")).toEqual({ name: { in: ["a", "b"], mode: "insensitive" } });
    expect(parseAssetFilter("name=out=(a,b)")).toEqual({ name: { notIn: ["a", "b"], mode: "insensitive" } });
    expect(parseAssetFilter("name==*.png")).toEqual({ name: { endsWith: ".png", mode: "insensitive" } });
  });

  it("rejects null for name and ordering operators for strings", () => {
    expectInvalid("name==null", 'field "name" is never null');
    expectInvalid("name=in=(a,null)", 'field "name" is never null');
    expectInvalid("name=gt=a", 'operator "=gt=" is not supported for field "name"; supported operators: ==, !=, =in=, =out=');
    expectInvalid("externalId<b", 'operator "<" is not supported for field "externalId"');
  });

  it("accepts an empty quoted string", () => {
    expect(parseAssetFilter('externalId==""')).toEqual({ externalId: "" });
  });
});

describe("wildcards", () => {
  it("prefix, suffix and infix patterns", () => {
    expect(parseAssetFilter("externalId==order-*")).toEqual({ externalId: { startsWith: "order-" } });
    expect(parseAssetFilter("externalId==*-2024")).toEqual({ externalId: { endsWith: "-2024" } });
    expect(parseAssetFilter("externalId==*batch*")).toEqual({ externalId: { contains: "batch" } });
    expect(parseAssetFilter("fileFormat==image/*")).toEqual({ fileFormat: { startsWith: "image/" } });
  });

  it("splits inner wildcards into pieces that must all occur", () => {
    expect(parseAssetFilter("externalId==a*z")).toEqual({ externalId: { startsWith: "a", endsWith: "z" } });
    expect(parseAssetFilter("externalId==a*m*z")).toEqual({ externalId: { startsWith: "a", endsWith: "z", contains: "m" } });
    expect(parseAssetFilter("name==*x*y*")).toEqual({
      AND: [{ name: { contains: "x", mode: "insensitive" } }, { name: { contains: "y", mode: "insensitive" } }],
    });
    expect(parseAssetFilter("externalId==a**z")).toEqual({ externalId: { startsWith: "a", endsWith: "z" } });
  });

  it("treats a pattern of only asterisks as any value", () => {
    expect(parseAssetFilter("externalId==*")).toEqual({ externalId: { not: null } });
    expect(parseAssetFilter("externalId==**")).toEqual({ externalId: { not: null } });
    expect(parseAssetFilter("externalId!=*")).toEqual({ externalId: null });
    expect(parseAssetFilter("name==*")).toEqual({});
    expect(parseAssetFilter("name!=*")).toEqual({ OR: [] });
  });

  it("negates patterns, keeping null rows for nullable fields", () => {
    expect(parseAssetFilter("name!=tmp*")).toEqual({ NOT: { name: { startsWith: "tmp", mode: "insensitive" } } });
    expect(parseAssetFilter("externalId!=tmp*")).toEqual({ OR: [{ externalId: null }, { NOT: { externalId: { startsWith: "tmp" } } }] });
  });

  it("escapes LIKE metacharacters in pattern pieces", () => {
    expect(parseAssetFilter("externalId==100%*")).toEqual({ externalId: { startsWith: "100\\%" } });
    expect(parseAssetFilter("externalId==*a_b")).toEqual({ externalId: { endsWith: "a\\_b" } });
    expect(parseAssetFilter("externalId==*x\\y*")).toEqual({ externalId: { contains: "x\\\\y" } });
    // Exact matches are not LIKE patterns and stay verbatim.
    expect(parseAssetFilter("externalId==100%_x")).toEqual({ externalId: "100%_x" });
  });

  it("keeps escaped asterisks in quoted values literal", () => {
    expect(parseAssetFilter("externalId=='a\\*b'")).toEqual({ externalId: "a*b" });
    expect(parseAssetFilter("externalId=='a\\**'")).toEqual({ externalId: { startsWith: "a*" } });
    expect(parseAssetFilter('externalId=="*x y*"')).toEqual({ externalId: { contains: "x y" } });
  });

  it("rejects wildcards in lists", () => {
    expectInvalid("name=in=(a*,b)", 'position 10: wildcards (*) are not supported here for field "name"', "only with == and !=");
    expectInvalid("externalId=out=(*)", "wildcards (*) are not supported here");
  });
});

describe("tags", () => {
  it("maps operators to array filters", () => {
    expect(parseAssetFilter("tags==summer")).toEqual({ tags: { has: "summer" } });
    expect(parseAssetFilter("tags!=summer")).toEqual({ NOT: { tags: { has: "summer" } } });
    expect(parseAssetFilter("tags=in=(a,b)")).toEqual({ tags: { hasSome: ["a", "b"] } });
    expect(parseAssetFilter("tags=out=(a,b)")).toEqual({ NOT: { tags: { hasSome: ["a", "b"] } } });
    expect(parseAssetFilter("tags=='with space'")).toEqual({ tags: { has: "with space" } });
    expect(parseAssetFilter("tags=='null'")).toEqual({ tags: { has: "null" } });
  });

  it("matches tags exactly (no wildcards, no null)", () => {
    expectInvalid("tags==sum*", 'wildcards (*) are not supported here for field "tags"');
    expectInvalid("tags==null", 'field "tags" is never null');
    expectInvalid("tags=gt=a", 'operator "=gt=" is not supported for field "tags"');
    expect(parseAssetFilter("tags=='a\\*'")).toEqual({ tags: { has: "a*" } });
  });
});
