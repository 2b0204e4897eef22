import { describe, expect, it } from "vitest";
import { ASSET_FILTER_LIMITS, FILTERABLE_ASSET_FIELDS, compileAssetFilter, parseAssetFilter } from "@/lib/assets/filter";
import { expectInvalid } from "@/lib/assets/filter/test-helpers";

describe("empty filters", () => {
  it.each([undefined, null, "", "   ", "\t\n"])("%j means no filter", (filter) => {
    expect(parseAssetFilter(filter)).toEqual({});
    expect(compileAssetFilter(filter).fields.size).toBe(0);
  });
});

describe("logical structure", () => {
  it("translates ; and the word and to AND", () => {
    const expected = { AND: [{ status: "approved" }, { type: "image" }] };
    expect(parseAssetFilter("status==approved;type==image")).toEqual(expected);
    expect(parseAssetFilter("status==approved and type==image")).toEqual(expected);
    expect(parseAssetFilter("status==approved AND type==image")).toEqual(expected);
  });

  it("translates , and the word or to OR", () => {
    const expected = { OR: [{ status: "approved" }, { status: "pending" }] };
    expect(parseAssetFilter("status==approved,status==pending")).toEqual(expected);
    expect(parseAssetFilter("status==approved or status==pending")).toEqual(expected);
    expect(parseAssetFilter("status==approved Or status==pending")).toEqual(expected);
  });

  it("binds ; tighter than ,", () => {
    expect(parseAssetFilter("status==approved,type==image;flagged==true")).toEqual({
      OR: [{ status: "approved" }, { AND: [{ type: "image" }, { flagged: true }] }],
    });
    expect(parseAssetFilter("status==approved;type==image,flagged==true")).toEqual({
      OR: [{ AND: [{ status: "approved" }, { type: "image" }] }, { flagged: true }],
    });
    expect(parseAssetFilter("status==approved or type==image and flagged==true")).toEqual({
      OR: [{ status: "approved" }, { AND: [{ type: "image" }, { flagged: true }] }],
    });
  });

  it("lets parentheses override precedence", () => {
    expect(parseAssetFilter("(status==approved,type==image);flagged==true")).toEqual({
      AND: [{ OR: [{ status: "approved" }, { type: "image" }] }, { flagged: true }],
    });
  });

  it("flattens redundant parentheses and nested groups of the same kind", () => {
    expect(parseAssetFilter("((status==approved))")).toEqual({ status: "approved" });
    expect(parseAssetFilter("status==approved;(type==image;(flagged==true))")).toEqual({
      AND: [{ status: "approved" }, { type: "image" }, { flagged: true }],
    });
    expect(parseAssetFilter("status==approved,(type==image,flagged==true)")).toEqual({
      OR: [{ status: "approved" }, { type: "image" }, { flagged: true }],
    });
  });

  it("tolerates whitespace between tokens", () => {
    expect(parseAssetFilter("  ( status == approved ; type =in= ( image , video ) )  ")).toEqual({
      AND: [{ status: "approved" }, { type: { in: ["image", "video"] } }],
    });
  });

  it("treats and/or as values in value position", () => {
    expect(parseAssetFilter("name==and or name==or")).toEqual({
      OR: [{ name: { in: ["and"], mode: "insensitive" } }, { name: { in: ["or"], mode: "insensitive" } }],
    });
  });
});

describe("operators", () => {
  it("accepts symbolic aliases for the ordering operators", () => {
    const ms = 1714521600000;
    const date = new Date(ms);
    expect(parseAssetFilter(`createdAt=gt=${ms}`)).toEqual({ createdAt: { gt: date } });
    expect(parseAssetFilter(`createdAt>${ms}`)).toEqual({ createdAt: { gt: date } });
    expect(parseAssetFilter(`createdAt=ge=${ms}`)).toEqual({ createdAt: { gte: date } });
    expect(parseAssetFilter(`createdAt>=${ms}`)).toEqual({ createdAt: { gte: date } });
    expect(parseAssetFilter(`createdAt=lt=${ms}`)).toEqual({ createdAt: { lt: date } });
    expect(parseAssetFilter(`createdAt<${ms}`)).toEqual({ createdAt: { lt: date } });
    expect(parseAssetFilter(`createdAt=le=${ms}`)).toEqual({ createdAt: { lte: date } });
    expect(parseAssetFilter(`createdAt<=${ms}`)).toEqual({ createdAt: { lte: date } });
  });

  it("accepts named operators in any case", () => {
    expect(parseAssetFilter("sizeInBytes=GT=10")).toEqual({ sizeInBytes: { gt: 10n } });
  });

  it("accepts =in= and =out= with a single unparenthesised value", () => {
    expect(parseAssetFilter("status=in=approved")).toEqual({ status: "approved" });
    expect(parseAssetFilter("status=out=approved")).toEqual({ status: { not: "approved" } });
  });
});

describe("quoting and escapes", () => {
  it("accepts single and double quotes", () => {
    expect(parseAssetFilter("externalId=='a b'")).toEqual({ externalId: "a b" });
    expect(parseAssetFilter('externalId=="a b"')).toEqual({ externalId: "a b" });
  });

  it("allows reserved characters inside quotes", () => {
    expect(parseAssetFilter(`externalId=="a;b,c(d)e=f!g<h>i'j"`)).toEqual({ externalId: "a;b,c(d)e=f!g<h>i'j" });
    expect(parseAssetFilter(`name=in=("x,y",'z)')`)).toEqual({ name: { in: ["x,y", "z)"], mode: "insensitive" } });
  });

  it("unescapes backslash sequences", () => {
    expect(parseAssetFilter('externalId=="say \\"hi\\""')).toEqual({ externalId: 'say "hi"' });
    expect(parseAssetFilter("externalId=='it\\'s'")).toEqual({ externalId: "it's" });
    expect(parseAssetFilter("externalId=='back\\\\slash'")).toEqual({ externalId: "back\\slash" });
    expect(parseAssetFilter("externalId=='\\n'")).toEqual({ externalId: "n" });
  });

  it("keeps backslashes in unquoted values", () => {
    expect(parseAssetFilter("externalId==a\\b")).toEqual({ externalId: "a\\b" });
  });

  it("accepts unicode", () => {
    expect(parseAssetFilter("name==Ünïcødé-名前")).toEqual({ name: { in: ["Ünïcødé-名前"], mode: "insensitive" } });
  });

  it("reports unterminated quotes and escapes", () => {
    expectInvalid('name=="abc', 'Invalid filter at position 7: quoted value is not closed; add the closing "');
    expectInvalid("name=='abc\\'", "position 7: quoted value is not closed; add the closing '");
    expectInvalid('name=="abc\\', "position 11: a backslash must be followed by the character it escapes");
  });

  it("rejects a quoted field name", () => {
    expectInvalid('"status"==approved', 'position 1: expected a field name or "(" but found the quoted value "status"');
  });

  it("asks for quotes around values with spaces", () => {
    expectInvalid("name==my file.png", 'position 10: expected ";", ",", "and", "or" or the end of the filter but found "file.png"', "must be quoted");
  });
});

describe("syntax errors", () => {
  it("unknown fields list the valid ones and suggest near misses", () => {
    expectInvalid(
      "status==approved;colour==red",
      `Invalid filter at position 18: unknown field "colour"; filterable fields: ${FILTERABLE_ASSET_FIELDS.join(", ")}`,
    );
    expectInvalid("created_at>0", 'unknown field "created_at" (did you mean "createdAt"?)');
    expectInvalid("Status==approved", '(did you mean "status"?)');
    expectInvalid("id==x", 'unknown field "id"');
  });

  it("reports bad operators", () => {
    expectInvalid("status=approved", 'position 7: "=" is not a comparison operator; use one of ==, !=');
    expectInvalid("status!approved", 'position 7: "!" is not a comparison operator');
    expectInvalid("status=like=approved", 'position 7: unknown operator "=like="');
    expectInvalid("status approved", 'position 8: expected a comparison operator', 'after "status" but found "approved"');
    expectInvalid("status", "position 7: expected a comparison operator", "but found the end of the filter");
    expectInvalid("status====approved", 'position 9: expected a value after "==" but found the operator "=="');
  });

  it("reports missing values and bad lists", () => {
    expectInvalid("status==", 'position 9: expected a value after "==" but found the end of the filter');
    expectInvalid("status==;type==image", 'position 9: expected a value after "==" but found ";"');
    expectInvalid("status=in=()", "position 12: a list needs at least one value");
    expectInvalid("status=in=(approved", 'position 20: expected "," or ")" in the list opened at position 11 but found the end of the filter');
    expectInvalid("status=in=(approved,)", 'position 21: expected a value in the list but found ")"');
    expectInvalid("status=in=(approved pending)", 'expected "," or ")" in the list', 'found "pending"');
    expectInvalid("status==(approved,pending)", 'position 9: operator "==" takes a single value; use =in= or =out= for a list');
    expectInvalid("createdAt>(1,2)", 'operator ">" takes a single value');
  });

  it("reports misplaced logical operators and parentheses", () => {
    expectInvalid(";status==approved", 'position 1: expected a field name or "(" but found ";"');
    expectInvalid("status==approved;", 'position 18: expected a field name or "(" but found the end of the filter');
    expectInvalid("status==approved,,type==image", 'position 18: expected a field name or "(" but found ","');
    expectInvalid("status==approved or", "expected a field name");
    expectInvalid("()", 'position 2: expected a field name or "(" but found ")"');
    expectInvalid("(status==approved", 'position 18: expected ")" to close the "(" at position 1 but found the end of the filter');
    expectInvalid("status==approved)", 'position 17: ")" has no matching "("');
    expectInvalid("status==approved type==image", 'position 18: expected ";", ",", "and", "or" or the end of the filter but found "type"');
    expectInvalid("status==approved(type==image)", 'position 17: expected ";", ",", "and", "or" or the end of the filter but found "("');
  });

  it("rejects control characters", () => {
    expectInvalid("name==a\u0000b", "position 8: control characters are not allowed");
    expectInvalid("name=='a\u0001b'", "position 9: control characters are not allowed");
    expectInvalid("name=='a\\\u0000'", "control characters are not allowed");
  });
});

describe("complexity limits", () => {
  it("caps the filter length", () => {
    const ok = `externalId==${"a".repeat(ASSET_FILTER_LIMITS.maxLength - "externalId==".length)}`;
    expect(() => parseAssetFilter(ok)).not.toThrow();
    expectInvalid(`${ok}b`, `Invalid filter: the filter is ${ASSET_FILTER_LIMITS.maxLength + 1} characters long; the maximum is 2000.`);
  });

  it("caps the number of comparisons", () => {
    const many = (n: number) => Array.from({ length: n }, () => "status==approved").join(";");
    expect(() => parseAssetFilter(many(ASSET_FILTER_LIMITS.maxConstraints))).not.toThrow();
    const position = 50 * "status==approved;".length + 1;
    expectInvalid(many(ASSET_FILTER_LIMITS.maxConstraints + 1), `position ${position}: too many comparisons; a filter may contain at most 50`);
  });

  it("caps the nesting depth", () => {
    const nested = (n: number) => `${"(".repeat(n)}status==approved${")".repeat(n)}`;
    expect(parseAssetFilter(nested(ASSET_FILTER_LIMITS.maxDepth))).toEqual({ status: "approved" });
    expectInvalid(nested(ASSET_FILTER_LIMITS.maxDepth + 1), "position 11: parentheses are nested more than 10 levels deep");
  });

  it("caps list sizes", () => {
    const list = (n: number) => `tags=in=(${Array.from({ length: n }, (_, i) => `t${i}`).join(",")})`;
    expect(() => parseAssetFilter(list(ASSET_FILTER_LIMITS.maxListValues))).not.toThrow();
    expectInvalid(list(ASSET_FILTER_LIMITS.maxListValues + 1), "a list may contain at most 100 values");
  });
});
