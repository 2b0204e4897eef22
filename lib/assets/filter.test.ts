import { describe, expect, it } from "vitest";
import { ApiError } from "@/lib/http/errors";
import {
  ASSET_FILTER_LIMITS,
  FILTERABLE_ASSET_FIELDS,
  compileAssetFilter,
  mentionsField,
  parseAssetFilter,
} from "./filter";

const F1 = "3f2504e0-4f89-41d3-9a0c-0305e82c3301";
const F2 = "6ba7b810-9dad-11d1-80b4-00c04fd430c8";

/** Asserts a validation error whose message contains every fragment (or matches the pattern). */
function expectInvalid(filter: string, ...expected: (string | RegExp)[]): string {
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

describe("enum fields", () => {
  it("status: ==, !=, =in=, =out=", () => {
    expect(parseAssetFilter("status==approved")).toEqual({ status: "approved" });
    expect(parseAssetFilter("status!=approved")).toEqual({ status: { not: "approved" } });
    expect(parseAssetFilter("status=in=(approved,pending)")).toEqual({ status: { in: ["approved", "pending"] } });
    expect(parseAssetFilter("status=out=(uploading,error)")).toEqual({ status: { notIn: ["uploading", "error"] } });
  });

  it("accepts every status value, quoted or not", () => {
    for (const status of ["uploading", "pending", "approved", "rejected", "error"]) {
      expect(parseAssetFilter(`status==${status}`)).toEqual({ status });
      expect(parseAssetFilter(`status=='${status}'`)).toEqual({ status });
    }
  });

  it("translates hyphenated asset types to the Prisma enum members", () => {
    expect(parseAssetFilter("type==plaintext-document")).toEqual({ type: "plaintext_document" });
    expect(parseAssetFilter("type==multimedia-document")).toEqual({ type: "multimedia_document" });
    expect(parseAssetFilter("type=in=(image,video,audio,website,file)")).toEqual({
      type: { in: ["image", "video", "audio", "website", "file"] },
    });
    expect(parseAssetFilter("type=out=(plaintext-document,multimedia-document)")).toEqual({
      type: { notIn: ["plaintext_document", "multimedia_document"] },
    });
  });

  it("rejects the Prisma spelling of asset types", () => {
    expectInvalid(
      "type==plaintext_document",
      'Invalid filter at position 7: invalid value "plaintext_document" for field "type"; expected one of: image, video, audio, plaintext-document, multimedia-document, website, file',
    );
  });

  it("rejects unknown enum values and ordering operators", () => {
    expectInvalid("status==Approved", 'invalid value "Approved" for field "status"', "uploading, pending, approved, rejected, error");
    expectInvalid("status==appr*", "wildcards (*) are only supported for name, externalId, fileFormat, fileExtension");
    expectInvalid("status=lt=approved", 'position 7: operator "=lt=" is not supported for field "status"; supported operators: ==, !=, =in=, =out=');
    expectInvalid("type>image", 'operator ">" is not supported for field "type"');
  });

  it("rejects null for status and type, which are never null", () => {
    expectInvalid("status==null", 'position 9: field "status" is never null');
    expectInvalid("type=in=(image,null)", 'field "type" is never null');
  });

  it("visibility and moderationAction: null, and null-aware negation", () => {
    expect(parseAssetFilter("visibility==public")).toEqual({ visibility: "public" });
    expect(parseAssetFilter("visibility==null")).toEqual({ visibility: null });
    expect(parseAssetFilter("visibility!=null")).toEqual({ visibility: { not: null } });
    expect(parseAssetFilter("visibility!=private")).toEqual({ OR: [{ visibility: null }, { visibility: { not: "private" } }] });
    expect(parseAssetFilter("moderationAction=in=(hide,purge)")).toEqual({ moderationAction: { in: ["hide", "purge"] } });
    expect(parseAssetFilter("moderationAction=in=(hide,null)")).toEqual({ OR: [{ moderationAction: "hide" }, { moderationAction: null }] });
    expect(parseAssetFilter("moderationAction=in=(null)")).toEqual({ moderationAction: null });
    expect(parseAssetFilter("moderationAction=out=(ignore,alert)")).toEqual({
      OR: [{ moderationAction: null }, { moderationAction: { notIn: ["ignore", "alert"] } }],
    });
    expect(parseAssetFilter("moderationAction=out=(ignore,null)")).toEqual({ moderationAction: { notIn: ["ignore"], not: null } });
    expect(parseAssetFilter("moderationAction=out=(null)")).toEqual({ moderationAction: { not: null } });
    expectInvalid("visibility==secret", 'invalid value "secret" for field "visibility"; expected one of: public, private');
    expectInvalid("moderationAction==delete", "expected one of: ignore, alert, hide, purge");
  });

  it('treats a quoted "null" as a value, not the null keyword', () => {
    expectInvalid('visibility=="null"', 'invalid value "null" for field "visibility"');
  });
});

describe("flagged", () => {
  it("accepts true, false and null", () => {
    expect(parseAssetFilter("flagged==true")).toEqual({ flagged: true });
    expect(parseAssetFilter("flagged==false")).toEqual({ flagged: false });
    expect(parseAssetFilter("flagged==null")).toEqual({ flagged: null });
    expect(parseAssetFilter("flagged!=true")).toEqual({ OR: [{ flagged: null }, { flagged: { not: true } }] });
    expect(parseAssetFilter("flagged=in=(true,null)")).toEqual({ OR: [{ flagged: true }, { flagged: null }] });
  });

  it("rejects other values", () => {
    expectInvalid("flagged==yes", 'invalid value "yes" for field "flagged"; expected one of: true, false');
    expectInvalid("flagged==TRUE", 'invalid value "TRUE"');
    expectInvalid("flagged==1", 'invalid value "1"');
    expectInvalid("flagged=gt=false", 'operator "=gt=" is not supported for field "flagged"');
  });
});

describe("UUID fields", () => {
  it("folderId and parentId: ==, !=, =in=, =out= and null", () => {
    expect(parseAssetFilter(`folderId==${F1}`)).toEqual({ folderId: F1 });
    expect(parseAssetFilter("folderId==null")).toEqual({ folderId: null });
    expect(parseAssetFilter("parentId!=null")).toEqual({ parentId: { not: null } });
    expect(parseAssetFilter(`parentId!=${F1}`)).toEqual({ OR: [{ parentId: null }, { parentId: { not: F1 } }] });
    expect(parseAssetFilter(`folderId=in=(${F1},${F2})`)).toEqual({ folderId: { in: [F1, F2] } });
    expect(parseAssetFilter(`folderId=in=(${F1},null)`)).toEqual({ OR: [{ folderId: F1 }, { folderId: null }] });
    expect(parseAssetFilter(`folderId=out=(${F1},${F2})`)).toEqual({ OR: [{ folderId: null }, { folderId: { notIn: [F1, F2] } }] });
  });

  it("normalises UUIDs to lower case", () => {
    expect(parseAssetFilter(`folderId==${F2.toUpperCase()}`)).toEqual({ folderId: F2 });
  });

  it("rejects malformed UUIDs", () => {
    expectInvalid("folderId==abc", 'position 11: invalid value "abc" for field "folderId"; expected a UUID or null');
    expectInvalid(`parentId==${F1}0`, 'for field "parentId"');
    expectInvalid(`folderId=in=(${F1},nope)`, 'invalid value "nope"');
    expectInvalid("folderId==*", 'invalid value "*"');
    expectInvalid(`folderId=gt=${F1}`, 'operator "=gt=" is not supported for field "folderId"');
  });
});

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

describe("dates", () => {
  it("accepts milliseconds since the epoch", () => {
    expect(parseAssetFilter("createdAt==1714521600000")).toEqual({ createdAt: new Date(1714521600000) });
    expect(parseAssetFilter("createdAt>0")).toEqual({ createdAt: { gt: new Date(0) } });
    expect(parseAssetFilter("updatedAt<-1000")).toEqual({ updatedAt: { lt: new Date(-1000) } });
  });

  it("accepts ISO-8601 date-times with a zone", () => {
    const expected = { createdAt: { gte: new Date("2024-05-01T10:20:30.000Z") } };
    expect(parseAssetFilter("createdAt=ge=2024-05-01T10:20:30Z")).toEqual(expected);
    expect(parseAssetFilter("createdAt=ge=2024-05-01T10:20:30.000Z")).toEqual(expected);
    expect(parseAssetFilter("createdAt=ge=2024-05-01T12:20:30+02:00")).toEqual(expected);
    expect(parseAssetFilter("createdAt=ge=2024-05-01T05:50:30-04:30")).toEqual(expected);
    expect(parseAssetFilter("createdAt=ge='2024-05-01T10:20:30Z'")).toEqual(expected);
    expect(parseAssetFilter("createdAt=ge=2024-05-01t10:20:30z")).toEqual(expected);
  });

  it("handles optional seconds and fractions", () => {
    expect(parseAssetFilter("updatedAt<2024-05-01T10:20Z")).toEqual({ updatedAt: { lt: new Date("2024-05-01T10:20:00Z") } });
    expect(parseAssetFilter("updatedAt<2024-05-01T10:20:30.5Z")).toEqual({ updatedAt: { lt: new Date("2024-05-01T10:20:30.500Z") } });
    expect(parseAssetFilter("updatedAt<2024-05-01T10:20:30.123456Z")).toEqual({ updatedAt: { lt: new Date("2024-05-01T10:20:30.123Z") } });
  });

  it("reads a bare date as UTC midnight", () => {
    expect(parseAssetFilter("createdAt=lt=2024-05-01")).toEqual({ createdAt: { lt: new Date("2024-05-01T00:00:00Z") } });
  });

  it("supports every operator", () => {
    const d1 = new Date("2024-01-01T00:00:00Z");
    const d2 = new Date("2024-02-01T00:00:00Z");
    expect(parseAssetFilter("createdAt!=2024-01-01")).toEqual({ createdAt: { not: d1 } });
    expect(parseAssetFilter("createdAt=in=(2024-01-01,2024-02-01T00:00:00Z)")).toEqual({ createdAt: { in: [d1, d2] } });
    expect(parseAssetFilter(`createdAt=out=(${d1.getTime()},${d2.getTime()})`)).toEqual({ createdAt: { notIn: [d1, d2] } });
    expect(parseAssetFilter("createdAt>2024-01-01;createdAt<2024-02-01")).toEqual({
      AND: [{ createdAt: { gt: d1 } }, { createdAt: { lt: d2 } }],
    });
  });

  it("rejects malformed and impossible dates", () => {
    const hint = "expected milliseconds since the epoch (e.g. 1714521600000) or an ISO-8601 date-time with a time zone";
    expectInvalid("createdAt>yesterday", 'position 11: invalid value "yesterday" for field "createdAt"', hint);
    expectInvalid("createdAt>2024-05-01T10:20:30", "2024-05-01T10:20:30", hint); // no zone
    expectInvalid("createdAt>2024-02-30", hint);
    expectInvalid("createdAt>2023-02-29T00:00Z", hint);
    expectInvalid("createdAt>2024-13-01", hint);
    expectInvalid("createdAt>2024-05-01T24:00:00Z", hint);
    expectInvalid("createdAt>2024-05-01T10:60Z", hint);
    expectInvalid("createdAt>2024-05-01T10:00+2400", hint);
    expectInvalid("createdAt>2024-05-01T10:00+24:00", hint);
    expectInvalid("createdAt>1.5", hint);
    expectInvalid("createdAt>99999999999999999", hint);
    expectInvalid("createdAt>8640000000000001", hint);
    expectInvalid("updatedAt==2024-05-01 10:00:00Z", 'found "10:00:00Z"');
  });

  it("accepts a leap day", () => {
    expect(parseAssetFilter("createdAt>2024-02-29")).toEqual({ createdAt: { gt: new Date("2024-02-29T00:00:00Z") } });
  });

  it("rejects null, which dates never are", () => {
    expectInvalid("createdAt==null", 'field "createdAt" is never null');
    expectInvalid("updatedAt>null", "null cannot be compared");
  });
});

describe("sizeInBytes", () => {
  it("translates to BigInt comparisons", () => {
    expect(parseAssetFilter("sizeInBytes==1024")).toEqual({ sizeInBytes: 1024n });
    expect(parseAssetFilter("sizeInBytes>1048576")).toEqual({ sizeInBytes: { gt: 1048576n } });
    expect(parseAssetFilter("sizeInBytes=ge=0")).toEqual({ sizeInBytes: { gte: 0n } });
    expect(parseAssetFilter("sizeInBytes<=9223372036854775807")).toEqual({ sizeInBytes: { lte: 9223372036854775807n } });
    expect(parseAssetFilter("sizeInBytes=in=(1,2)")).toEqual({ sizeInBytes: { in: [1n, 2n] } });
    expect(parseAssetFilter("sizeInBytes!=5")).toEqual({ OR: [{ sizeInBytes: null }, { sizeInBytes: { not: 5n } }] });
  });

  it("supports null (size unknown while uploading)", () => {
    expect(parseAssetFilter("sizeInBytes==null")).toEqual({ sizeInBytes: null });
    expect(parseAssetFilter("sizeInBytes!=null")).toEqual({ sizeInBytes: { not: null } });
    expectInvalid("sizeInBytes>null", 'position 13: null cannot be compared with ">"; use ==null or !=null');
  });

  it("rejects non-integers, negatives and values beyond 64 bits", () => {
    const hint = "expected a non-negative integer number of bytes";
    expectInvalid("sizeInBytes>1.5", 'invalid value "1.5" for field "sizeInBytes"', hint);
    expectInvalid("sizeInBytes>-1", hint);
    expectInvalid("sizeInBytes>1e6", hint);
    expectInvalid("sizeInBytes>big", hint);
    expectInvalid("sizeInBytes>9223372036854775808", hint);
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

describe("field helpers", () => {
  it("lists the filterable fields", () => {
    expect([...FILTERABLE_ASSET_FIELDS].sort()).toEqual(
      [
        "createdAt",
        "externalId",
        "fileExtension",
        "fileFormat",
        "flagged",
        "folderId",
        "moderationAction",
        "name",
        "parentId",
        "sizeInBytes",
        "status",
        "tags",
        "type",
        "updatedAt",
        "visibility",
      ].sort(),
    );
  });

  it("mentionsField finds fields anywhere in the filter", () => {
    expect(mentionsField(undefined, "parentId")).toBe(false);
    expect(mentionsField("", "parentId")).toBe(false);
    expect(mentionsField("status==approved", "parentId")).toBe(false);
    expect(mentionsField("parentId==null", "parentId")).toBe(true);
    expect(mentionsField(`status==approved,(type==image;parentId==${F1})`, "parentId")).toBe(true);
    expect(mentionsField("name=='parentId==x'", "parentId")).toBe(false);
  });

  it("mentionsField rejects invalid filters like parseAssetFilter", () => {
    expect(() => mentionsField("parentId==nope", "parentId")).toThrow(/invalid value "nope" for field "parentId"/);
    expect(() => mentionsField("parentId==", "parentId")).toThrow(ApiError);
  });

  it("compileAssetFilter returns the condition and the fields", () => {
    const compiled = compileAssetFilter("status==approved;tags==x,status==error");
    expect(compiled.where).toEqual({ OR: [{ AND: [{ status: "approved" }, { tags: { has: "x" } }] }, { status: "error" }] });
    expect([...compiled.fields].sort()).toEqual(["status", "tags"]);
  });

  it("returns fresh objects on every call", () => {
    const a = parseAssetFilter("name!=*");
    (a as { OR: unknown[] }).OR.push({ status: "approved" });
    expect(parseAssetFilter("name!=*")).toEqual({ OR: [] });
  });
});
